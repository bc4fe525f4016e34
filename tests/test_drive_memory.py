"""A drive costs memory in proportion to what has been written (issue 9, defect 6).

Before, ``Drive.from_preset("bg4-1tb").clone()`` copied the whole 1 GB page map with nothing written. The
figures are a process's peak resident memory, measured in a child process so that nothing else this test
session has done counts.
"""

from __future__ import annotations

import json
import subprocess
import sys

LIMIT_MB = 100

# Peak RSS before and after: two fresh bg4-1tb drives and a clone of one, then a clone of a drive with
# 1 GiB written. VmHWM, not ru_maxrss: a child's ru_maxrss starts at its parent's peak (Linux keeps it
# across exec), so under a big pytest process every difference would read 0.
CHILD = """
import json
import ssdlab

def peak_mb():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmHWM:")) / 1024

base = peak_mb()
a = ssdlab.Drive.from_preset("bg4-1tb")
fresh = peak_mb() - base
b = a.clone()
two = peak_mb() - base
a.run(ssdlab.Workload(rw="write", bs="128k", iodepth=32, size="1g"))
written = peak_mb() - base
c = a.clone()
cloned_written = peak_mb() - base
print(json.dumps({"fresh": fresh, "with_clone": two, "written": written,
                  "written_clone": cloned_written}))
"""


def test_a_fresh_1tb_drive_and_its_clone_cost_under_100_mb() -> None:
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, check=True)
    mb = json.loads(out.stdout)
    assert mb["fresh"] <= LIMIT_MB, mb
    # the clone adds at most another LIMIT_MB on top of its original
    assert mb["with_clone"] <= 2 * LIMIT_MB, mb
    # a clone of a written drive shares its map: it costs no more than a fresh clone did, plus slack
    assert mb["written_clone"] - mb["written"] <= LIMIT_MB, mb
