#!/bin/busybox sh
# /init of the guest scripts/build_guest.sh makes: an ext4 filesystem on the twin (/dev/vda), a file
# written, read back after a remount (so from the disk, not the page cache) and compared, then power off.
# The test looks for the "ssdlab-guest: ok" line on the serial console; any failure powers off without it.
/bin/busybox --install -s /bin
export PATH=/bin:/sbin  # busybox also has an mke2fs (ext2 only): /sbin/mke2fs is called by its path
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev

fail() {
    echo "ssdlab-guest: FAILED: $*"
    poweroff -f
}

modprobe virtio_pci && modprobe virtio_blk && modprobe crc32c_generic && modprobe ext4 || fail "modprobe"
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -b /dev/vda ] && break; sleep 1; done
[ -b /dev/vda ] || fail "no /dev/vda"
echo "ssdlab-guest: /dev/vda is $(cat /sys/block/vda/size) sectors"

/sbin/mke2fs -q -F -t ext4 /dev/vda || fail "mke2fs"
mount -t ext4 /dev/vda /mnt || fail "mount"
dd if=/dev/urandom of=/mnt/data bs=1M count=8 2>/dev/null || fail "write"
written=$(sha256sum /mnt/data | cut -d' ' -f1)
sync
umount /mnt || fail "umount"
echo 3 > /proc/sys/vm/drop_caches
mount -t ext4 /dev/vda /mnt || fail "mount again"
read=$(sha256sum /mnt/data | cut -d' ' -f1)
umount /mnt
[ "$read" = "$written" ] || fail "read back $read, wrote $written"
echo "ssdlab-guest: ok: 8 MiB written and read back, sha256 $read"
poweroff -f
