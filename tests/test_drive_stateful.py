"""Hypothesis drives the Python API as a user might, in any order: the stepping calls keep their
invariants (time never goes back, completions never precede their submission, outstanding counts what
was not polled, what was written reads back after a notified power cut), and any text given to the
`--set` or fio job-file parsers gives a clear `SsdlabError` or a result, never another exception."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

import ssdlab
from ssdlab.drive import parse_overrides
from ssdlab.fio.jobfile import parse_jobfile_text

PAGE = 4096
PAGES = 512  # the part of the drive the machine uses


class SteppedDrive(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 1}, data=True)
        self.submitted: dict[int, int] = {}  # id -> submit time
        self.written: dict[int, int] = {}  # page -> fill byte
        self.last_now = 0
        self.off = False

    @precondition(lambda self: not self.off)
    @rule(page=st.integers(0, PAGES - 8), n=st.integers(1, 8), fill=st.integers(1, 255), fua=st.booleans())
    def write(self, page: int, n: int, fill: int, fua: bool) -> None:
        cid = self.drive.submit("write", page * PAGE, n * PAGE, fua=fua, data=bytes([fill]) * (n * PAGE))
        self.submitted[cid] = self.drive.now_ns
        self.written.update({p: fill for p in range(page, page + n)})

    @precondition(lambda self: not self.off)
    @rule(page=st.integers(0, PAGES - 8), n=st.integers(1, 8))
    def read(self, page: int, n: int) -> None:
        self.submitted[self.drive.submit("read", page * PAGE, n * PAGE)] = self.drive.now_ns

    @precondition(lambda self: not self.off)
    @rule(page=st.integers(0, PAGES - 8), n=st.integers(1, 8))
    def trim(self, page: int, n: int) -> None:
        self.submitted[self.drive.submit("trim", page * PAGE, n * PAGE)] = self.drive.now_ns
        for p in range(page, page + n):
            self.written.pop(p, None)

    @rule(us=st.integers(0, 5_000))
    def advance(self, us: int) -> None:
        self.drive.advance(self.drive.now_ns + us * 1000)

    @rule()
    def poll(self) -> None:
        for c in self.drive.poll():
            assert c.complete_ns >= c.submit_ns == self.submitted.pop(c.id)
            assert c.complete_ns <= self.drive.now_ns

    @precondition(lambda self: not self.off)
    @rule()
    def power_cut_with_notification(self) -> None:
        # what completed before the cut stays pollable (its completion is in host memory); the rest is dropped
        now = self.drive.now_ns
        due = {i: t for i, t in self.submitted.items() if (self.drive.completion_ns(i) or now + 1) <= now}
        cut = self.drive.power_cut(pln=True)
        assert cut.flushed and cut.lost_lpns == []
        assert cut.commands_dropped == len(self.submitted) - len(due)
        self.submitted = due
        self.off = True

    @precondition(lambda self: self.off)
    @rule()
    def power_on(self) -> None:
        assert self.drive.power_on() > 0
        self.off = False
        for p, fill in list(self.written.items())[:16]:
            assert self.drive.read_data(p * PAGE, PAGE) == bytes([fill]) * PAGE

    @invariant()
    def time_moves_forward_and_outstanding_counts_the_unpolled(self) -> None:
        assert self.drive.now_ns >= self.last_now
        self.last_now = self.drive.now_ns
        assert self.drive.outstanding == len(self.submitted)


TestSteppedDrive = SteppedDrive.TestCase
TestSteppedDrive.settings = settings(max_examples=25, stateful_step_count=30, deadline=None)


@given(st.lists(st.text(max_size=30), max_size=4))
def test_any_set_text_parses_or_is_a_clear_error(items: list[str]) -> None:
    try:
        pairs = parse_overrides(items)
    except ssdlab.SsdlabError as e:
        assert str(e)
        return
    try:
        ssdlab.Drive.from_preset("bg4-1tb", set=dict(pairs) | {"ftl.user_capacity_gb": "1"})
    except ssdlab.SsdlabError as e:
        assert str(e)


@settings(deadline=None)
@given(st.text(max_size=200))
def test_any_job_file_text_parses_or_is_a_clear_error(text: str) -> None:
    try:
        parse_jobfile_text(text, env={})
    except ssdlab.SsdlabError as e:
        assert str(e)
