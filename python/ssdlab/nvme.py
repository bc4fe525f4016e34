"""NVMe views of a twin: Identify Controller / Namespace and the SMART / Health Information log page,
computed from the preset's facts and the drive's counters as an NVMe drive reports them; and
:class:`Controller`, the drive as an NVMe controller: namespaces over its one FTL, IO addressed per
namespace, sanitize, Format NVM with crypto erase, the error, telemetry and firmware slot log pages, and
Get/Set Features.

Field names follow the NVMe Base Specification (2.0) and nvme-cli's ``id-ctrl`` / ``smart-log`` output; units
are NVMe's own (data units of 1000 x 512 bytes, temperatures in kelvin on the wire, here also in Celsius).

Examples
--------
>>> import ssdlab
>>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 1})
>>> _ = drive.run(ssdlab.Workload(rw="write", bs="128k", size="100m"))
>>> log = smart_log(drive)
>>> log["data_units_written"], log["host_write_commands"], log["percentage_used"]
(205, 800, 0)
>>> identify_controller(drive)["mn"]
'bg4-1tb'
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any

from ssdlab._core import version
from ssdlab.drive import Completion, Drive
from ssdlab.errors import Problem, WorkloadError
from ssdlab.units import PAGE

#: NVMe counts data units of 1000 512-byte units, rounded up (Base Specification 2.0, SMART log bytes 32..47).
DATA_UNIT_BYTES = 512_000


def identify_controller(drive: Drive) -> dict[str, Any]:
    """The Identify Controller fields a host reads to set the drive up: model, capacity, the power states
    with their maximum power and entry/exit latencies, the HMB sizes, whether a volatile write cache is
    present, and the thermal management temperatures."""
    cfg = drive.config()
    mc = cfg["controller"]["map_cache"]
    power = cfg.get("power", {})
    thermal = cfg.get("thermal", {})
    hmb = mc["location"] == "hmb"
    states = [  # the non-operational states the power model has (PS3, PS4 on client drives)
        {
            "ps": s["name"],
            "max_power_w": s["controller_mw"] / 1e3,
            "entry_lat_us": s["entry_latency_us"],
            "exit_lat_us": s["exit_latency_us"],
        }
        for s in power.get("nonop_states", [])
    ]
    return {
        "mn": drive.name,
        "tnvmcap": drive.capacity_bytes,
        "nn": 1,
        "vwc": 0 if cfg["controller"].get("write_path", {}).get("power_loss_protection") else 1,
        "hmpre_4kib": mc["hmb_size_mib"] * 256 if hmb else 0,
        "hmmin_4kib": mc["hmb_size_mib"] * 256 if hmb else 0,
        "mntmt_c": thermal.get("tmt1_c"),  # thermal management temperatures 1 and 2
        "mxtmt_c": thermal.get("tmt2_c"),
        "apsta": int(bool(power.get("apst", False))),
        "psd": states,
        "link": f"PCIe Gen{cfg['link'].get('gen')} x{cfg['link'].get('lanes')}"
        if cfg["link"]["kind"] == "pcie"
        else cfg["link"]["kind"],
    }


def identify_namespace(drive: Drive) -> dict[str, Any]:
    """Identify Namespace for a drive as it ships: one namespace over its whole capacity in 4 KiB LBAs
    (LBA format 1 of :data:`LBA_FORMATS`). :meth:`Controller.identify_namespace` reports each namespace
    once there are several."""
    return Controller(drive).identify_namespace(1)


def smart_log(drive: Drive) -> dict[str, int | float]:
    """The SMART / Health Information log page (log identifier 02h) from the drive's counters.

    ``percentage_used`` is the mean P/E count over the endurance limit (``ftl.pe_cycle_limit``), may exceed
    100 and is capped at 255 as the specification says; ``available_spare`` falls as blocks retire (grown
    bad blocks against the factory spare); ``power_on_hours`` is simulated time."""
    c = drive.counters()
    cfg = drive.config()
    limit = cfg["ftl"]["pe_cycle_limit"]
    used = min(255, math.floor(100 * c["pe_cycles_mean"] / limit)) if limit else 0
    nand = cfg["nand"]
    blocks = nand["channels"] * nand["dies_per_channel"] * nand["blocks_per_plane"]
    spare_blocks = max(1.0, blocks * 0.02)  # the 2% a drive reserves for retiring blocks (a convention)
    spare = max(0, round(100 * (1 - c["grown_bad_blocks"] / spare_blocks)))
    temp_c = c["temperature_c"]
    return {
        "critical_warning": int(spare < 10),
        "temperature_k": round(temp_c + 273.15) if not math.isnan(temp_c) else 0,
        "temperature_c": temp_c,
        "available_spare": spare,
        "available_spare_threshold": 10,
        "percentage_used": used,
        "data_units_read": math.ceil(c["host_read_bytes"] / DATA_UNIT_BYTES),
        "data_units_written": math.ceil(c["host_write_bytes"] / DATA_UNIT_BYTES),
        "host_read_commands": int(c["host_read_ios"]),
        "host_write_commands": int(c["host_write_ios"]),
        "power_on_hours": int(drive.now_ns // 3_600_000_000_000),
        "unsafe_shutdowns": int(c["unsafe_shutdowns"]),
        "media_errors": int(c["data_integrity_errors"]),
        "num_err_log_entries": int(c["data_integrity_errors"]),
    }


#: The LBA formats a namespace can have (Identify Namespace LBAF0 and LBAF1): LBA data sizes in bytes, no
#: metadata. The FTL maps 4 KiB pages, so a 512-byte LBA is an eighth of a page (:meth:`Controller.submit`).
LBA_FORMATS = (512, 4096)

#: The smallest unit a command moves (the drive's sector); the media key works a sector at a time.
SECTOR = 512
_ZEROS = bytes(SECTOR)

#: Sanitize actions (the SANACT field of the Sanitize command) by name.
SANITIZE_ACTIONS = {"block-erase": 2, "overwrite": 3, "crypto-erase": 4}

#: Sanitize Status (log page 81h) SSTAT values.
SANITIZE_NEVER, SANITIZE_DONE, SANITIZE_IN_PROGRESS, SANITIZE_DONE_NO_DEALLOCATE = 0, 1, 2, 4

#: Get/Set Features this controller has, by name, with the NVMe feature identifier.
FEATURES = {
    "power-management": 0x02,
    "volatile-write-cache": 0x06,
    "apst": 0x0C,
    "hmb": 0x0D,
}


class CommandError(WorkloadError):
    """A command the controller fails, with the NVMe status it would post (``status``, e.g.
    ``"LBA Out of Range"``) and a problem naming the field, the value and what is allowed. It is a
    :class:`ssdlab.WorkloadError` (bad input): the CLI prints it and exits 2."""

    def __init__(self, status: str, field: str, message: str, value: object) -> None:
        super().__init__([Problem(field, str(value), message)])
        self.status = status


@dataclass
class Namespace:
    """One namespace: a range of the drive's 4 KiB pages (``first_page``, ``pages``) with an LBA size."""

    nsid: int
    first_page: int
    pages: int
    lba_bytes: int
    attached: bool = False
    key: bytes = b""
    """The media encryption key: the data of this namespace is stored encrypted with it."""

    @property
    def nsze(self) -> int:
        """Size in LBAs."""
        return self.pages * PAGE // self.lba_bytes

    @property
    def size_bytes(self) -> int:
        return self.pages * PAGE


@dataclass
class _Pending:
    """What :meth:`Controller.poll` needs to turn a drive completion into the namespace's view."""

    nsid: int
    offset: int  # namespace byte offset asked for
    length: int
    drive_offset: int  # where on the drive the command's bytes start
    key: bytes


@dataclass
class _Sanitize:
    action: str
    start_ns: int
    end_ns: int
    no_deallocate: bool


@dataclass
class _ErrorEntry:
    error_count: int
    status: str
    nsid: int
    lba: int
    field: str
    message: str


class Controller:
    """The drive as an NVMe controller: namespaces as LBA ranges over the drive's one FTL, IO addressed
    per namespace, sanitize, log pages and features.

    A new controller has what a drive ships with: namespace 1 over the whole capacity, 4 KiB LBAs,
    attached. Namespace management works as on a real drive: delete it, then create smaller ones
    (``nsze`` in LBAs of 512 B or 4 KiB, each a contiguous range of whole 4 KiB pages, first fit) and
    attach them. A command to an unknown or detached namespace, or beyond a namespace's end, fails
    with the NVMe status and a message naming the field (:class:`CommandError`); it never reaches the
    drive.

    Each namespace's data is stored encrypted with its media key (a keystream from SHAKE-128 of the key
    and the page number, XORed on): changing the key (:meth:`format_namespace` with ``crypto_erase``, or
    a crypto-erase :meth:`sanitize` with ``no_deallocate``) makes the old data read back as
    deterministic garbage at once. Deallocated pages read as zeros whatever the key (DLFEAT = 1): a
    page the drive returns as all zeros is taken as deallocated (a written page whose ciphertext is all
    zeros has probability 2**-32768).

    Drive IO that bypasses the controller (``drive.submit``) sees the stored ciphertext, as raw media
    would. ``max_namespaces`` (NN) is a choice: the presets carry no such fact.

    Examples
    --------
    >>> import ssdlab
    >>> nvme = Controller(ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 1}, data=True))
    >>> nvme.delete_namespace(1)
    >>> a = nvme.create_namespace(nsze=2048, lba_bytes=512)   # 1 MiB of 512-byte LBAs
    >>> b = nvme.create_namespace(nsze=256)                   # 1 MiB of 4 KiB LBAs, just after it
    >>> nvme.attach_namespace(a); nvme.attach_namespace(b)
    >>> _ = nvme.write(b, 0, b"B" * 4096)
    >>> _ = nvme.write(a, 3, b"a" * 512)                      # LBA 3: bytes 1536..2047 of namespace a
    >>> nvme.read(a, 3, 1) == b"a" * 512, nvme.read(a, 0, 3) == bytes(1536), nvme.read(b, 0, 1)[:1]
    (True, True, b'B')
    >>> [(ns["nsid"], ns["nsze"], ns["lba_bytes"]) for ns in map(nvme.identify_namespace, (a, b))]
    [(1, 2048, 512), (2, 256, 4096)]
    >>> try:
    ...     nvme.read(b, 256, 1)
    ... except CommandError as e:
    ...     print(e.status, "|", e)
    LBA Out of Range | slba: namespace 2 has LBAs 0..255 (4096 bytes each); 256 + 1 LBAs go past its end
    (got 256)
    """

    def __init__(self, drive: Drive, max_namespaces: int = 16) -> None:
        self.drive = drive
        self.max_namespaces = max_namespaces
        self._key_generation = 0
        self.namespaces: dict[int, Namespace] = {}
        self._pending: dict[int, _Pending] = {}
        self._done: list[Completion] = []
        self._sanitize: _Sanitize | None = None
        self._errors: list[_ErrorEntry] = []
        self._error_count = 0
        self._telemetry_generation = 0
        # what the drive can do, as made (Set Features changes the drive's config: APST, the map's place)
        self._made = identify_controller(drive)
        self.features: dict[str, dict[str, int]] = {
            "power-management": {"ps": 0},
            "volatile-write-cache": {"wce": self._made["vwc"]},
            "apst": {"apste": self._made["apsta"]},
            "hmb": {"ehm": int(self._made["hmpre_4kib"] > 0), "hsize_4kib": self._made["hmpre_4kib"]},
        }
        self._operational_ps = 0  # the state a command returns the drive to from a non-operational one
        self._synthetic = 1 << 62  # ids of completions the controller makes itself (above the drive's)
        whole = Namespace(1, 0, drive.capacity_bytes // PAGE, PAGE, attached=True, key=self._new_key(1))
        self.namespaces[1] = whole

    # --- namespace management -------------------------------------------------------------------------

    def _new_key(self, nsid: int) -> bytes:
        # deterministic (the twin replays exactly); a real drive draws its keys from a random source
        self._key_generation += 1
        return hashlib.blake2b(
            f"ssdlab media key {nsid} {self._key_generation}".encode(), digest_size=32
        ).digest()

    def _fail(
        self, status: str, field: str, message: str, value: object, nsid: int = 0, lba: int = 0
    ) -> CommandError:
        # every failed command is an entry of the error log (log page 01h), newest first
        self._error_count += 1
        self._errors.insert(0, _ErrorEntry(self._error_count, status, nsid, lba, field, message))
        del self._errors[64:]  # the log keeps the latest 64 entries (ELPE + 1)
        return CommandError(status, field, message, value)

    def _free_ranges(self) -> list[tuple[int, int]]:
        """Unallocated (first page, pages), in address order."""
        used = sorted((ns.first_page, ns.pages) for ns in self.namespaces.values())
        free, at = [], 0
        for first, n in used:
            if first > at:
                free.append((at, first - at))
            at = first + n
        total = self.drive.capacity_bytes // PAGE
        if total > at:
            free.append((at, total - at))
        return free

    def create_namespace(self, nsze: int, lba_bytes: int = 4096) -> int:
        """Namespace Management (create): a namespace of ``nsze`` LBAs of ``lba_bytes`` (512 or 4096) in the
        first free range that holds it; returns its NSID. It reads as zeros and is not attached yet."""
        if lba_bytes not in LBA_FORMATS:
            raise self._fail(
                "Invalid Format", "lba_bytes", f"must be one of {', '.join(map(str, LBA_FORMATS))}", lba_bytes
            )
        if isinstance(nsze, bool) or not isinstance(nsze, int) or nsze <= 0:
            raise self._fail(
                "Invalid Field in Command", "nsze", "must be a whole number of LBAs above 0", nsze
            )
        if nsze * lba_bytes % PAGE:
            raise self._fail(
                "Invalid Field in Command",
                "nsze",
                f"nsze x {lba_bytes} bytes must be whole 4 KiB pages (the FTL's unit): "
                f"a multiple of {PAGE // lba_bytes}",
                nsze,
            )
        ids = [i for i in range(1, self.max_namespaces + 1) if i not in self.namespaces]
        if not ids:
            raise self._fail(
                "Namespace Identifier Unavailable",
                "nsid",
                f"the controller has at most {self.max_namespaces} namespaces",
                len(self.namespaces),
            )
        pages = nsze * lba_bytes // PAGE
        free = self._free_ranges()
        fits = [first for first, n in free if n >= pages]
        if not fits:
            largest = max((n for _, n in free), default=0)
            raise self._fail(
                "Namespace Insufficient Capacity",
                "nsze",
                f"needs {pages * PAGE} contiguous bytes; the largest unallocated range has {largest * PAGE} "
                f"(unallocated in all: {sum(n for _, n in free) * PAGE})",
                nsze,
            )
        nsid = ids[0]
        self.namespaces[nsid] = Namespace(nsid, fits[0], pages, lba_bytes, key=self._new_key(nsid))
        return nsid

    def _namespace(self, nsid: int, attached: bool = False) -> Namespace:
        ns = self.namespaces.get(nsid)
        if ns is None:
            known = ", ".join(map(str, sorted(self.namespaces))) or "none"
            raise self._fail(
                "Invalid Namespace or Format", "nsid", f"no such namespace (there are: {known})", nsid, nsid
            )
        if attached and not ns.attached:
            raise self._fail(
                "Namespace Not Attached",
                "nsid",
                f"namespace {nsid} is not attached (attach_namespace first)",
                nsid,
                nsid,
            )
        return ns

    def delete_namespace(self, nsid: int) -> None:
        """Namespace Management (delete): its range is deallocated (its data is gone: trimmed) and free."""
        self._idle_check(nsid)
        ns = self._namespace(nsid)
        self.drive.trim(ns.first_page * PAGE, ns.size_bytes)
        del self.namespaces[nsid]

    def attach_namespace(self, nsid: int) -> None:
        """Namespace Attachment (attach to this controller): IO may address it."""
        self._namespace(nsid).attached = True

    def detach_namespace(self, nsid: int) -> None:
        """Namespace Attachment (detach): IO to it fails with Namespace Not Attached; its data stays."""
        self._namespace(nsid).attached = False

    def format_namespace(self, nsid: int, lba_bytes: int | None = None, crypto_erase: bool = False) -> None:
        """Format NVM: the namespace's data is deallocated (reads zeros) and its LBA size becomes
        ``lba_bytes`` (the same bytes, so ``nsze`` changes); with ``crypto_erase`` (Secure Erase Settings 2)
        its media key changes first, so whatever a host could still reach of the old data is garbage."""
        self._idle_check(nsid)
        ns = self._namespace(nsid)
        if lba_bytes is not None:
            if lba_bytes not in LBA_FORMATS:
                raise self._fail(
                    "Invalid Format",
                    "lba_bytes",
                    f"must be one of {', '.join(map(str, LBA_FORMATS))}",
                    lba_bytes,
                    nsid,
                )
            ns.lba_bytes = lba_bytes
        if crypto_erase:
            ns.key = self._new_key(nsid)
        self.drive.trim(ns.first_page * PAGE, ns.size_bytes)

    def change_media_key(self, nsid: int) -> None:
        """A new media key for ``nsid`` and nothing else: its data stays mapped and reads back as garbage
        (what a crypto erase does to the data before the drive deallocates it)."""
        self._namespace(nsid).key = self._new_key(nsid)

    def identify_namespace(self, nsid: int) -> dict[str, Any]:
        """Identify Namespace (CNS 00h) for ``nsid``: size, capacity and use in its LBAs (no thin
        provisioning: NUSE = NCAP = NSZE), the LBA formats with the one in use (FLBAS), deallocated blocks
        read as zeros (DLFEAT 1), and where the namespace lies on the drive (``first_byte``, a twin's
        extra)."""
        ns = self._namespace(nsid)
        return {
            "nsid": nsid,
            "nsze": ns.nsze,
            "ncap": ns.nsze,
            "nuse": ns.nsze,
            "nsfeat": 0,
            "nlbaf": len(LBA_FORMATS) - 1,
            "flbas": LBA_FORMATS.index(ns.lba_bytes),
            "lbaf": [{"ds": b.bit_length() - 1, "ms": 0} for b in LBA_FORMATS],
            "dlfeat": 1,
            "lba_bytes": ns.lba_bytes,
            "attached": ns.attached,
            "first_byte": ns.first_page * PAGE,
        }

    def identify_controller(self) -> dict[str, Any]:
        """:func:`identify_controller` with what this controller adds: the namespace count and limit, the
        unallocated capacity, namespace management and Format NVM in OACS, and the sanitize actions."""
        ctrl = dict(self._made)  # capabilities as made: Set Features changes the config, not them
        free = sum(n for _, n in self._free_ranges()) * PAGE
        ctrl.update(
            nn=self.max_namespaces,
            unvmcap=free,
            oacs={"format_nvm": 1, "namespace_management": 1},
            sanicap={"crypto_erase": 1, "block_erase": 1, "overwrite": 1},
            frmw={"slots": 1, "slot1_read_only": 1},
            elpe=63,
            npss=self._operational_states() + len(ctrl["psd"]) - 1,
            active_namespaces=sorted(n for n, ns in self.namespaces.items() if ns.attached),
        )
        return ctrl

    # --- IO ------------------------------------------------------------------------------------------

    def _idle_check(self, nsid: int) -> None:
        s = self._sanitize
        if s is not None and self.drive.now_ns < s.end_ns:
            raise self._fail(
                "Sanitize In Progress",
                "sanitize",
                f"the {s.action} sanitize runs until {s.end_ns} ns (now {self.drive.now_ns} ns): "
                "wait for it, polling sanitize_log()",
                s.action,
                nsid,
            )

    def _range(self, ns: Namespace, slba: int, nlb: int) -> tuple[int, int]:
        """The namespace's (byte offset, length) of ``nlb`` LBAs from ``slba``, checked against its end."""
        for name, v, least in (("slba", slba, 0), ("nlb", nlb, 1)):
            if isinstance(v, bool) or not isinstance(v, int) or v < least:
                raise self._fail(
                    "Invalid Field in Command", name, f"must be a whole number >= {least}", v, ns.nsid
                )
        if slba + nlb > ns.nsze:
            raise self._fail(
                "LBA Out of Range",
                "slba",
                f"namespace {ns.nsid} has LBAs 0..{ns.nsze - 1} ({ns.lba_bytes} bytes each); "
                f"{slba} + {nlb} LBAs go past its end",
                slba,
                ns.nsid,
                slba,
            )
        return slba * ns.lba_bytes, nlb * ns.lba_bytes

    def _keystream(self, key: bytes, page: int) -> bytes:
        return hashlib.shake_128(key + page.to_bytes(8, "little")).digest(PAGE)

    def _crypt(self, key: bytes, offset: int, data: bytes, reading: bool) -> bytes:
        """``data`` (whole sectors of the drive from byte ``offset``) XORed with the key's keystream. Read
        back, a sector of zeros stays zeros whatever the key: never written, or deallocated."""
        out = bytearray()
        i = 0
        while i < len(data):  # a page at a time: one keystream each
            page, at = divmod(offset + i, PAGE)
            chunk = data[i : i + PAGE - at]
            n = len(chunk)
            ks = self._keystream(key, page)[at : at + n]
            xored = (int.from_bytes(chunk, "little") ^ int.from_bytes(ks, "little")).to_bytes(n, "little")
            if reading:
                sectors = (chunk[k : k + SECTOR] for k in range(0, n, SECTOR))
                xored = b"".join(
                    s if s == _ZEROS else xored[k * SECTOR : (k + 1) * SECTOR] for k, s in enumerate(sectors)
                )
            out += xored
            i += n
        return bytes(out)

    def submit(
        self, nsid: int, op: str, slba: int = 0, nlb: int = 0, *, data: bytes | None = None, fua: bool = False
    ) -> int:
        """Submit a command to namespace ``nsid`` at the drive's current time; returns its id (collect it
        with :meth:`poll`). ``op``: ``read``, ``write``, ``trim`` (Dataset Management deallocate) or
        ``flush``; ``slba``/``nlb`` in the namespace's LBAs.

        The FTL maps 4 KiB pages: a write of part of one (512-byte LBAs) is the drive's read-modify-write
        (the page's other LBAs keep theirs; a page on flash is read first, ``rmw_reads``), a trim
        deallocates only the whole pages it covers. With the volatile write cache off
        (:meth:`set_feature`), every write is FUA: it completes once on flash."""
        if op not in ("read", "write", "trim", "flush"):
            raise self._fail("Invalid Command Opcode", "op", "must be read, write, trim or flush", op, nsid)
        self._idle_check(nsid)
        ns = self._namespace(nsid, attached=True)
        if op == "flush":
            return self._submit_drive("flush", 0, 0, ns, 0, None, False)
        offset, length = self._range(ns, slba, nlb)
        if op == "write" and data is not None and len(data) != length:
            raise self._fail(
                "Invalid Field in Command",
                "data",
                f"must be nlb x {ns.lba_bytes} = {length} bytes",
                len(data),
                nsid,
                slba,
            )
        if op == "trim" and -(-offset // PAGE) >= (offset + length) // PAGE:
            # no whole page to deallocate (Deallocate is a hint): nothing for the drive; it completes at once
            self._synthetic += 1
            now = self.drive.now_ns
            self._done.append(Completion(self._synthetic, "trim", offset, length, now, now, "success"))
            return self._synthetic
        at = ns.first_page * PAGE + offset
        payload = None
        if op == "write" and self.drive.data_enabled:
            payload = self._crypt(ns.key, at, data if data is not None else bytes(length), reading=False)
        fua = fua or (op == "write" and not self.features["volatile-write-cache"]["wce"])
        return self._submit_drive(op, at, length, ns, offset, payload, fua)

    def _submit_drive(
        self, op: str, at: int, length: int, ns: Namespace, offset: int, payload: bytes | None, fua: bool
    ) -> int:
        # a command takes the drive out of a non-operational state the host chose (the engine charges the
        # exit latency); it is back in the last operational one
        self.features["power-management"]["ps"] = self._operational_ps
        cid = self.drive.submit(op, at, length, fua=fua, data=payload)
        self._pending[cid] = _Pending(ns.nsid, offset, length, at, ns.key)
        return cid

    def poll(self) -> list[Completion]:
        """Completions due by now, in the namespaces' terms: ``offset`` and ``length`` are the namespace's
        bytes asked for, a read's ``data`` is exactly those bytes, decrypted."""
        done, self._done = self._done, []
        return done + [self._translate(c) for c in self.drive.poll()]

    def _translate(self, c: Completion) -> Completion:
        p = self._pending.pop(c.id, None)
        if p is None:  # a command submitted to the drive directly
            return c
        data = c.data
        if data is not None:
            data = self._crypt(p.key, p.drive_offset, data, reading=True)
        return c._replace(offset=p.offset, length=p.length, data=data)

    def _wait(self, cid: int) -> Completion:
        for i, c in enumerate(self._done):
            if c.id == cid:
                return self._done.pop(i)
        while self.drive.outstanding:
            self.drive.advance()
            for c in self.drive.poll():
                t = self._translate(c)
                if t.id == cid:
                    return t
                self._done.append(t)
        raise RuntimeError(f"command {cid} never completed")  # cannot happen: the drive completes them all

    def read(self, nsid: int, slba: int, nlb: int) -> bytes:
        """Read ``nlb`` LBAs from ``slba`` and wait for them (the clock moves to the completion); needs the
        drive's data on. Other completions that come first stay for :meth:`poll`."""
        if not self.drive.data_enabled:
            raise self._fail(
                "Invalid Field in Command",
                "data",
                "the drive keeps no data: make it with data=True",
                "off",
                nsid,
                slba,
            )
        c = self._wait(self.submit(nsid, "read", slba, nlb))
        return c.data if c.data is not None else bytes(c.length)

    def write(self, nsid: int, slba: int, data: bytes, *, fua: bool = False) -> Completion:
        """Write ``data`` (whole LBAs) from ``slba`` and wait for the completion."""
        ns = self._namespace(nsid)
        if len(data) % ns.lba_bytes:
            raise self._fail(
                "Invalid Field in Command",
                "data",
                f"must be whole LBAs of {ns.lba_bytes} bytes",
                len(data),
                nsid,
                slba,
            )
        return self._wait(self.submit(nsid, "write", slba, len(data) // ns.lba_bytes, data=data, fua=fua))

    # --- sanitize ------------------------------------------------------------------------------------

    def sanitize(self, action: str, *, passes: int = 1, no_deallocate: bool = False) -> int:
        """Sanitize (controller-wide) and return when its NAND work ends (simulated ns). The command
        completes at once; the work goes on in the background and :meth:`sanitize_log` shows its progress.
        Until it ends, IO and namespace changes fail with Sanitize In Progress.

        - ``block-erase``: every block holding data is erased (dies in parallel, a tBERS each).
        - ``overwrite``: every block holding data is, ``passes`` times (1..16), erased and programmed with a
          pattern unit by unit, then erased once more to rejoin the free pool.
        - ``crypto-erase``: every namespace gets a new media key, which takes no NAND work; the map is then
          deallocated (reads return zeros) unless ``no_deallocate``, when the old data stays mapped and
          reads back as garbage.

        Afterwards no LBA returns old data: block erase and overwrite empty the map and the stored data
        (reads return zeros); the twin deallocates after them, so ``no_deallocate`` is for crypto erase
        only. Wear, counters and the clock carry on.
        """
        if action not in SANITIZE_ACTIONS:
            raise self._fail(
                "Invalid Field in Command", "action", f"must be one of {', '.join(SANITIZE_ACTIONS)}", action
            )
        if isinstance(passes, bool) or not isinstance(passes, int) or not 1 <= passes <= 16:
            raise self._fail("Invalid Field in Command", "passes", "must be 1..16 (the OWPASS field)", passes)
        if passes != 1 and action != "overwrite":
            raise self._fail("Invalid Field in Command", "passes", "is for the overwrite action only", passes)
        if no_deallocate and action != "crypto-erase":
            raise self._fail(
                "Invalid Field in Command",
                "no_deallocate",
                "is for crypto-erase only: the twin deallocates after block erase and overwrite",
                action,
            )
        self._idle_check(0)
        if self.drive.outstanding:
            raise self._fail(
                "Command Sequence Error",
                "sanitize",
                "commands are outstanding: poll them first",
                self.drive.outstanding,
            )
        start = self.drive.now_ns
        if action == "crypto-erase":
            for ns in self.namespaces.values():
                ns.key = self._new_key(ns.nsid)
            if not no_deallocate:
                self.drive.trim(0, self.drive.capacity_bytes)
            end = start
        else:
            end = self.drive._drive.start_sanitize(passes if action == "overwrite" else 0)
        self._sanitize = _Sanitize(action, start, end, no_deallocate)
        return end

    def sanitize_log(self) -> dict[str, Any]:
        """The Sanitize Status log page (81h): progress SPROG (of 65536) and status SSTAT (0 never,
        1 done, 2 in progress, 4 done without deallocation) of the latest sanitize, its action (SCDW10's
        SANACT), and the time it takes, in seconds, in the estimate field of its action (ETBE, ETCE, ETO;
        0xFFFFFFFF, "no estimate", in the others). ``progress_pct`` and ``end_ns`` are a twin's extras.

        Examples
        --------
        >>> import ssdlab
        >>> nvme = Controller(ssdlab.Drive.from_preset("bg4-1tb", capacity_gb=2))
        >>> _ = nvme.drive.run(ssdlab.Workload(rw="write", bs="1m", size="1g"))
        >>> end = nvme.sanitize("block-erase")
        >>> log = nvme.sanitize_log()
        >>> log["sstat"], log["sprog"] < 65535
        (2, True)
        >>> _ = nvme.drive.advance(end)
        >>> log = nvme.sanitize_log()
        >>> log["sstat"], log["progress_pct"], log["scdw10"]
        (1, 100.0, 2)
        """
        s = self._sanitize
        none = 0xFFFFFFFF
        if s is None:
            return {
                "sprog": 65535,
                "sstat": SANITIZE_NEVER,
                "scdw10": 0,
                "eto": none,
                "etbe": none,
                "etce": none,
                "progress_pct": 100.0,
                "end_ns": None,
            }
        now = self.drive.now_ns
        span = s.end_ns - s.start_ns
        frac = 1.0 if now >= s.end_ns or span == 0 else (now - s.start_ns) / span
        if frac >= 1.0:
            sstat = SANITIZE_DONE_NO_DEALLOCATE if s.no_deallocate else SANITIZE_DONE
        else:
            sstat = SANITIZE_IN_PROGRESS
        seconds = math.ceil(span / 1e9)
        est = {"overwrite": "eto", "block-erase": "etbe", "crypto-erase": "etce"}[s.action]
        log: dict[str, Any] = {
            "sprog": min(65535, int(frac * 65536)),
            "sstat": sstat,
            "scdw10": SANITIZE_ACTIONS[s.action],
            "eto": none,
            "etbe": none,
            "etce": none,
        }
        log[est] = seconds
        log.update(progress_pct=round(100 * frac, 3), end_ns=s.end_ns, action=s.action)
        return log

    # --- log pages -----------------------------------------------------------------------------------

    def smart_log(self) -> dict[str, int | float]:
        """:func:`smart_log`, counting this controller's failed commands in ``num_err_log_entries`` too."""
        log = smart_log(self.drive)
        log["num_err_log_entries"] = int(log["num_err_log_entries"]) + self._error_count
        return log

    def error_log(self) -> list[dict[str, Any]]:
        """The Error Information log page (01h): one entry per failed command, newest first (the latest
        64), each with its error count, status, namespace, LBA, the parameter in error and the reason.
        Media errors found by a read's CRC are counted in the SMART log (``media_errors``), not here: the
        drive does not tell which command met them."""
        return [
            {
                "error_count": e.error_count,
                "status": e.status,
                "nsid": e.nsid,
                "lba": e.lba,
                "parameter_error_location": e.field,
                "message": e.message,
            }
            for e in self._errors
        ]

    def telemetry_host(self) -> dict[str, Any]:
        """The Telemetry Host-Initiated log page (07h), created anew on each call (Create Telemetry
        Host-Initiated Data): the header (log identifier, generation number) and data area 1 carrying
        every counter of the drive by name (:mod:`ssdlab.counters`), the SMART log and the clock.

        Examples
        --------
        >>> import ssdlab
        >>> nvme = Controller(ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 1}))
        >>> _ = nvme.drive.run(ssdlab.Workload(rw="write", bs="4k", size="1m"))
        >>> t = nvme.telemetry_host()
        >>> t["log_identifier"], t["generation"], t["data_area_1"]["counters"]["host_write_ios"]
        (7, 1, 256.0)
        """
        self._telemetry_generation += 1
        counters = dict(self.drive.counters().items())
        return {
            "log_identifier": 0x07,
            "generation": self._telemetry_generation,
            "controller_initiated_data_available": 0,
            "data_area_1": {
                "now_ns": self.drive.now_ns,
                "counters": counters,
                "smart": smart_log(self.drive),
            },
        }

    def firmware_slot_info(self) -> dict[str, Any]:
        """The Firmware Slot Information log page (03h): one slot, active, holding the twin's build (the
        presets carry no firmware revision, so the revision is ssdlab's version, in FR's 8 characters)."""
        return {"afi": {"active_slot": 1, "next_reset_slot": 0}, "frs": {1: version()[:8]}}

    # --- features ------------------------------------------------------------------------------------

    def get_feature(self, name: str) -> dict[str, int]:
        """Get Features: the current value of ``name`` (see :data:`FEATURES`) as its fields."""
        if name not in FEATURES:
            raise self._fail(
                "Invalid Field in Command", "feature", f"must be one of {', '.join(FEATURES)}", name
            )
        return dict(self.features[name])

    def _operational_states(self) -> int:
        """Operational power states (PS0..): the non-operational ones the preset lists follow them (its
        first is named PS3 on the BG4: three operational states); 1 when it lists none."""
        psd = self._made["psd"]
        name = psd[0]["ps"] if psd else ""
        return int(name[2:]) if name[:2] == "PS" and name[2:].isdigit() else 1

    def set_feature(self, name: str, **fields: int) -> dict[str, int]:
        """Set Features; returns the new value. What each does to the twin:

        - ``volatile-write-cache`` ``wce`` 0/1: off, every write through the controller is FUA (it
          completes once on flash, so no acknowledged write is at risk in a power cut). Refused on a
          drive without a volatile write cache (VWC 0).
        - ``power-management`` ``ps``: a non-operational state (PS3 and up on the BG4) draws that state's
          controller power from now until the next command, which waits its exit latency and returns the
          drive to the last operational state. The operational states other than PS0 are recorded only:
          the power model has one active power.
        - ``apst`` ``apste`` 0/1: APST on or off from now on (the drive enters its non-operational states
          after their idle times, or never).
        - ``hmb`` ``ehm`` 0/1, ``hsize_4kib``: the host gives ``hsize_4kib`` x 4 KiB of its memory for the
          map cache (whole MiB, HMMIN..HMPRE), or takes it back (the controller caches map pages in its
          SRAM). The cache starts cold. Refused on a drive that asks for no host memory (HMPRE 0).

        Examples
        --------
        >>> import ssdlab
        >>> nvme = Controller(ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 1}))
        >>> nvme.get_feature("hmb")
        {'ehm': 1, 'hsize_4kib': 16384}
        >>> nvme.set_feature("hmb", ehm=0)
        {'ehm': 0, 'hsize_4kib': 16384}
        >>> 'location = "sram"' in nvme.drive.config_toml()
        True
        """
        current = self.get_feature(name)
        for k, v in fields.items():
            if k not in current:
                raise self._fail(
                    "Invalid Field in Command", "fields", f"{name} has the fields {', '.join(current)}", k
                )
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise self._fail("Invalid Field in Command", k, "must be a whole number >= 0", v)
        made = self._made
        new = {**current, **fields}
        switch = {"volatile-write-cache": "wce", "apst": "apste", "hmb": "ehm"}.get(name)
        if switch is not None and new[switch] not in (0, 1):
            raise self._fail("Invalid Field in Command", switch, "must be 0 or 1", new[switch])
        native = self.drive._drive
        if name == "volatile-write-cache":
            if new["wce"] and not made["vwc"]:
                raise self._fail(
                    "Invalid Field in Command", "wce", "this drive has no volatile write cache (VWC 0)", 1
                )
        elif name == "power-management":
            operational = self._operational_states()
            npss = operational + len(made["psd"]) - 1
            if new["ps"] > npss:
                raise self._fail("Invalid Field in Command", "ps", f"must be 0..{npss} (NPSS)", new["ps"])
            if new["ps"] >= operational:
                native.set_power_state(new["ps"] - operational)
            else:
                native.set_power_state(None)
                self._operational_ps = new["ps"]
        elif name == "apst":
            if new["apste"] and not made["psd"]:
                raise self._fail(
                    "Invalid Field in Command", "apste", "the drive has no non-operational states", 1
                )
            native.set_apst(bool(new["apste"]))
        elif name == "hmb":
            if not made["hmpre_4kib"]:
                raise self._fail(
                    "Invalid Field in Command", "ehm", "the drive asks for no host memory buffer (HMPRE 0)", 1
                )
            size = new["hsize_4kib"]
            if new["ehm"] and (size % 256 or not made["hmmin_4kib"] <= size <= made["hmpre_4kib"]):
                raise self._fail(
                    "Invalid Field in Command",
                    "hsize_4kib",
                    f"must be whole MiB (multiples of 256) from HMMIN {made['hmmin_4kib']} to HMPRE "
                    f"{made['hmpre_4kib']}",
                    size,
                )
            native.set_host_memory_buffer(size // 256 if new["ehm"] else None)
        self.features[name] = new
        return dict(new)
