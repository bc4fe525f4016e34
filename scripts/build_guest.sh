#!/bin/sh
# A small Linux guest that uses the twin as its disk (tests/test_serve.py, docs/serve.md): Debian's kernel,
# downloaded with apt-get and unpacked here (never installed on the host), and an initramfs holding
# busybox, mke2fs with its libraries, the modules for a virtio disk and ext4, and an /init that makes an
# ext4 filesystem on /dev/vda, writes a file, reads it back after a remount and powers off.
#
#     scripts/build_guest.sh [DIR]      # default target/guest; does nothing once built
#
# Writes DIR/vmlinuz and DIR/initramfs.gz (again when this script or guest_init.sh changed). Needs
# busybox-static and apt-get (make sysdeps).
set -eu

dir=${1:-target/guest}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
cd "$dir"
if [ -f vmlinuz ] && [ initramfs.gz -nt "$here/guest_init.sh" ] && [ initramfs.gz -nt "$here/build_guest.sh" ]; then
    exit 0
fi

# The kernel: whatever Debian's linux-image-amd64 points at now (older ABIs leave the archive). The .deb
# is kept (70 MB) and unpacked for the build only (400 MB).
deb=$(ls linux-image-*.deb 2>/dev/null | head -n 1)
if [ -z "$deb" ]; then
    pkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-/ { print $2; exit }')
    test -n "$pkg" || { echo "build_guest.sh: no linux-image-amd64 in apt's lists (apt-get update?)" >&2; exit 1; }
    apt-get download "$pkg"
    deb=$(ls "$pkg"_*.deb)
fi
rm -rf kernel && dpkg-deb -x "$deb" kernel
ver=$(ls kernel/lib/modules)
cp kernel/boot/vmlinuz-"$ver" vmlinuz

rm -rf root && mkdir -p root/bin root/sbin root/etc root/dev root/proc root/sys root/mnt
cp /bin/busybox root/bin/busybox
cp "$here/guest_init.sh" root/init && chmod +x root/init

# mke2fs from the host's e2fsprogs with the shared libraries it loads (busybox's mke2fs makes ext2 only).
cp /usr/sbin/mke2fs root/sbin/mke2fs
cp /etc/mke2fs.conf root/etc/
for lib in $(ldd /usr/sbin/mke2fs | grep -o '/[^ ]*'); do
    mkdir -p root"$(dirname "$lib")" && cp -L "$lib" root"$lib"
done

# The modules: virtio_pci and virtio_blk for the disk, ext4, and crc32c for ext4's metadata checksums,
# with everything they depend on (busybox's depmod writes the dependency list the guest's modprobe reads).
mods=kernel/lib/modules/$ver
busybox depmod -b kernel "$ver"
for m in virtio_pci virtio_blk crc32c_generic ext4; do
    for ko in $(grep "/$m.ko:" "$mods"/modules.dep | tr -d :); do
        mkdir -p root/lib/modules/"$ver"/"$(dirname "$ko")"
        cp "$mods/$ko" root/lib/modules/"$ver"/"$ko"
    done
done
busybox depmod -b root "$ver"

(cd root && find . | busybox cpio -o -H newc 2>/dev/null) | gzip -1 > initramfs.gz.tmp
mv initramfs.gz.tmp initramfs.gz
rm -rf root kernel
echo "build_guest.sh: $dir/vmlinuz ($ver) and $dir/initramfs.gz"
