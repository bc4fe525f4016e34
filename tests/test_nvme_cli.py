"""``ssdlab nvme ...`` as a user runs it: a state file carries a drive from command to command (namespaces,
data, features, the error log and a sanitize survive), and bad input names the option, the value and what is
allowed, exiting 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SSDLAB = Path(sys.executable).parent / "ssdlab"
SMALL = ["--preset", "bg4-1tb", "--set", "ftl.user_capacity_gb=1"]


def nvme(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SSDLAB), "nvme", *args], capture_output=True, text=True, timeout=300)


def ok(*args: str) -> Any:
    """What the command printed, as JSON (None for a command that prints nothing)."""
    out = nvme(*args, "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout) if out.stdout.strip() else None


def test_a_state_file_carries_namespaces_data_and_a_sanitize_between_commands(tmp_path: Path) -> None:
    st = ["--state", str(tmp_path / "drive.json")]
    ok("delete-ns", *st, *SMALL, "--namespace-id", "1")
    assert ok("create-ns", *st, "--nsze", "2048", "--lba-bytes", "512") == {"nsid": 1}
    ok("attach-ns", *st, "--namespace-id", "1")
    ok("write", *st, "-n", "1", "--start-block", "8", "-c", "8", "--pattern", "0x5a")
    back = ok("read", *st, "-n", "1", "--start-block", "8", "-c", "8")
    assert back["first_16"] == "5a" * 16 and not back["all_zeros"]
    ns = ok("id-ns", *st, "-n", "1")
    assert (ns["nsze"], ns["lba_bytes"]) == (2048, 512)
    assert ok("smart-log", *st)["host_write_commands"] == 1
    log = ok("sanitize", *st, "--action", "block-erase")
    assert (log["sstat"], log["action"]) == (1, "block-erase")
    assert isinstance(log["simulated_s"], float) and log["simulated_s"] > 0
    assert ok("read", *st, "-n", "1", "--start-block", "8", "-c", "8")["all_zeros"] is True
    assert ok("sanitize-log", *st)["sstat"] == 1
    ok("detach-ns", *st, "--namespace-id", "1")
    assert nvme("read", *st, "-n", "1", "--start-block", "8", "-c", "8").returncode == 2  # not attached


def test_a_failed_command_stays_in_the_error_log_and_a_feature_stays_set(tmp_path: Path) -> None:
    st = ["--state", str(tmp_path / "drive.json")]
    bad = nvme("read", *st, *SMALL, "-n", "1", "--start-block", "244140", "-c", "1")
    assert bad.returncode == 2
    (entry,) = ok("error-log", *st)
    assert entry["status"] == "LBA Out of Range" and entry["lba"] == 244140
    assert ok("smart-log", *st)["num_err_log_entries"] == 1
    assert ok("set-feature", *st, "-f", "volatile-write-cache", "-v", "wce=0") == {"wce": 0}
    assert ok("get-feature", *st, "-f", "volatile-write-cache") == {"wce": 0}


def test_a_sanitize_left_running_shows_its_progress_until_idle_time_ends_it(tmp_path: Path) -> None:
    st = ["--state", str(tmp_path / "drive.json")]
    ok(
        "write",
        *st,
        "--preset",
        "bg4-1tb",
        "--scale-capacity-gb",
        "2",
        "-n",
        "1",
        "--start-block",
        "0",
        "-c",
        "64",
    )
    ok("sanitize", *st, "--action", "overwrite", "--no-wait")
    running = ok("sanitize-log", *st)
    assert running["sstat"] == 2
    busy = nvme("read", *st, "-n", "1", "--start-block", "0", "-c", "1")
    assert busy.returncode == 2 and busy.stderr.startswith(
        "error: sanitize: the overwrite sanitize runs until"
    )
    ok("idle", *st, "--seconds", "10")
    assert ok("sanitize-log", *st)["sstat"] == 1


def test_identify_and_logs_run_on_a_preset_without_a_state_file() -> None:
    ctrl = ok("id-ctrl", "--preset", "bg4-128gb")
    assert ctrl["mn"] == "bg4-128gb" and ctrl["sanicap"] == {
        "crypto_erase": 1,
        "block_erase": 1,
        "overwrite": 1,
    }
    telemetry = nvme("telemetry", "--preset", "bg4-128gb")
    assert json.loads(telemetry.stdout)["data_area_1"]["counters"]["host_write_bytes"] == 0
    assert ok("fw-log", "--preset", "bg4-128gb")["afi"] == {"active_slot": 1, "next_reset_slot": 0}


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (["id-ns", *SMALL, "-n", "3"], "error: --namespace-id: no such namespace (there are: 1) (got 3)"),
        (
            ["write", *SMALL, "-n", "1", "--start-block", "244140", "-c", "1"],
            "error: --start-block: namespace 1 has LBAs 0..244139 (4096 bytes each); 244140 + 1 LBAs go past "
            "its end (got 244140)",
        ),
        (
            ["write", *SMALL, "-n", "1", "--start-block", "0", "-c", "1", "--pattern", "300"],
            "error: --pattern: ",
        ),
        (["create-ns", *SMALL, "--nsze", "8"], "error: --nsze: needs 32768 contiguous bytes"),
        (["sanitize", *SMALL, "--action", "shred"], "error: --action: must be one of block-erase, overwrite"),
        (["sanitize", *SMALL, "--action", "overwrite", "--passes", "0"], "error: --passes: must be 1..16"),
        (["get-feature", *SMALL, "-f", "arbitration"], "error: --feature: must be one of power-management"),
        (["set-feature", *SMALL, "-f", "hmb", "-v", "ehm=2"], "error: --value: ehm: must be 0 or 1 (got 2)"),
        (["set-feature", *SMALL, "-f", "apst", "-v", "apste"], "error: --value: must be FIELD=N"),
        (["set-feature", *SMALL, "-f", "power-management", "-v", "ps=9"], "error: --value: ps: must be 0..4"),
        (["id-ctrl", "--preset", "nope"], "error: --preset: unknown preset 'nope'"),
    ],
)
def test_bad_input_names_the_option_and_what_is_allowed_and_exits_2(args: list[str], line: str) -> None:
    out = nvme(*args)
    assert out.returncode == 2, out.stdout
    assert out.stderr.startswith(line), out.stderr
    assert "Traceback" not in out.stderr


def test_a_state_file_is_not_silently_given_a_second_drive(tmp_path: Path) -> None:
    st = ["--state", str(tmp_path / "drive.json")]
    ok("id-ctrl", *st, *SMALL)
    again = nvme("id-ctrl", *st, "--preset", "bg4-128gb")
    assert again.returncode == 2 and again.stderr.startswith("error: --state: ")
    (tmp_path / "junk.json").write_text("{}")
    junk = nvme("id-ctrl", "--state", str(tmp_path / "junk.json"))
    assert junk.returncode == 2 and "not an ssdlab nvme state file" in junk.stderr
