"""fio job files and fio's command-line form, read into :class:`ssdlab.Workload` job specs.

The INI dialect is fio's, not Python's configparser's: ``[global]`` sections apply to the jobs below them
(and add up when there are several), a job section is named by its header, ``include FILE`` pulls a file
in where it stands (relative to the including file), ``${VAR}`` is replaced from the environment, lines
starting with ``;`` or ``#`` are comments, and a bare name (``time_based``) is a flag.

Groups follow fio: ``stonewall`` waits for every job before it and starts a new reporting group,
``new_group`` starts a new reporting group that still runs alongside the jobs before it, ``wait_for=NAME``
starts a job once the named one is done. Jobs that run at the same time are one :meth:`ssdlab.Drive.run`.

Examples
--------
>>> text = '''
... [global]
... bs=4k
... size=1g
... runtime=2s
... [reader]
... rw=randread
... iodepth=32
... [writer]
... stonewall
... rw=write
... bs=128k
... '''
>>> jf = parse_jobfile_text(text, "example.fio")
>>> [(j.name, j.workload.rw, j.workload.bs, j.phase, j.groupid) for j in jf.jobs]
[('reader', 'randread', 4096, 0, 0), ('writer', 'write', 131072, 1, 1)]
>>> try:
...     parse_jobfile_text("[a]\\nzonemode=zbd\\n", "mine.fio")
... except JobFileError as e:
...     print(str(e).partition(";")[0])
mine.fio:2: zonemode: not supported yet (ssdlab has no zoned devices)
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from ssdlab.errors import Problem, SsdlabError, WorkloadError, nearest
from ssdlab.fio.options import OPTIONS, Fields, Option, OptionValueError, supported_names
from ssdlab.workload import Workload

__all__ = [
    "DEFAULT_PERCENTILES",
    "FioJob",
    "Ignored",
    "JobFile",
    "JobFileError",
    "load_jobs",
    "parse_jobfile_text",
]

#: fio's default ``percentile_list``.
DEFAULT_PERCENTILES = (
    1.0,
    5.0,
    10.0,
    20.0,
    30.0,
    40.0,
    50.0,
    60.0,
    70.0,
    80.0,
    90.0,
    95.0,
    99.0,
    99.5,
    99.9,
    99.95,
    99.99,
)

#: fio's defaults where they differ from :class:`ssdlab.Workload`'s: rw is ``read``; the bandwidth and
#: IOPS samples are 500 ms wide (``bwavgtime``).
FIO_DEFAULTS: dict[str, object] = {"rw": "read", "interval": "500ms", "randommap": True}

_INCLUDE_DEPTH = 16
_VAR = re.compile(r"\$\{([^}]*)\}")


class JobFileError(WorkloadError):
    """A job file or fio command line that cannot be run: ``file:line: option: problem``.

    ``.where`` is ``file:line`` (or ``command line``), ``.field`` the option, ``.value`` its text.
    """

    def __init__(self, where: str, option: str, message: str, value: object = "") -> None:
        super().__init__([Problem(f"{where}: {option}" if option else where, "", message)])
        self.where = where
        self._option = option or where
        self._value = "" if value is None else str(value)

    @property
    def field(self) -> str:
        return self._option

    @property
    def value(self) -> str:
        return self._value


@dataclass(frozen=True)
class _Setting:
    key: str  # as written
    text: str | None  # None for a bare flag
    where: str
    option: Option


@dataclass(frozen=True)
class Ignored:
    """An option accepted and ignored (or honoured only in part: ``verb``), with where it was and why."""

    option: str
    value: str
    where: str
    why: str
    verb: str = "ignored"

    def to_dict(self) -> dict[str, str]:
        out = {"option": self.option, "value": self.value, "where": self.where, "why": self.why}
        return out if self.verb == "ignored" else {**out, "verb": self.verb}


@dataclass
class FioJob:
    """One job section, resolved: its workload, how many clones, and where it runs and reports."""

    name: str
    where: str
    workload: Workload
    numjobs: int
    #: Options as written in the job's own section (fio's ``job options``), flags left out as fio does.
    options: dict[str, str]
    description: str = ""
    stonewall: bool = False
    new_group: bool = False
    wait_for: str | None = None
    group_reporting: bool = False
    percentiles: tuple[float, ...] = DEFAULT_PERCENTILES
    #: ``file:line: option`` that set each Workload field (and each job option, by name).
    sources: dict[str, str] = field(default_factory=dict)
    #: fio's logs the job writes: kind (``bw``, ``iops``, ``lat``) -> file prefix.
    logs: dict[str, str] = field(default_factory=dict)
    #: One file per job clone (fio's ``per_job_logs``).
    per_job_logs: bool = True
    #: Each log line gives the IO's offset (fio's ``log_offset``).
    log_offset: bool = False
    #: Jobs with the same phase run at once; phases run one after another.
    phase: int = 0
    #: fio's reporting group.
    groupid: int = 0


@dataclass
class JobFile:
    """Every job of the files and command line given, in order, ready to run."""

    jobs: list[FioJob]
    #: Options of the ``[global]`` sections and of the command line before the first ``--name``.
    global_options: dict[str, str] = field(default_factory=dict)
    ignored: list[Ignored] = field(default_factory=list)

    @property
    def phases(self) -> list[list[FioJob]]:
        """Jobs grouped by the phase they run in, phases in order."""
        out: dict[int, list[FioJob]] = {}
        for job in self.jobs:
            out.setdefault(job.phase, []).append(job)
        return [out[p] for p in sorted(out)]


@dataclass
class _Section:
    name: str
    where: str
    items: list[tuple[str, str | None, str]]  # key, value text (None = flag), where


# Reading the text.


def _substitute(text: str, where: str, env: Mapping[str, str]) -> str:
    def value(m: re.Match[str]) -> str:
        name = m.group(1)
        if name not in env:
            raise JobFileError(where, f"${{{name}}}", "is not set in the environment")
        return env[name]

    return _VAR.sub(value, text)


def _strip_comment(line: str) -> str:
    # A ';' or '#' after white space starts a comment, as at the start of a line.
    m = re.search(r"(^|\s)[;#]", line)
    return line[: m.start()] if m else line


def _read_lines(
    path: Path, env: Mapping[str, str], depth: int, seen: tuple[Path, ...], shown: str
) -> list[tuple[str, str]]:
    """``(where, text)`` for each meaningful line of ``path``, includes expanded in place."""
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError as e:
        raise JobFileError(shown, "", f"cannot read the job file: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise JobFileError(shown, "", "is not a UTF-8 text file") from None
    return _lines_of(raw, shown, path.parent, env, depth, (*seen, path.resolve()))


def _lines_of(
    raw: str, shown: str, base: Path, env: Mapping[str, str], depth: int, seen: tuple[Path, ...]
) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for n, line in enumerate(raw.splitlines(), start=1):
        where = f"{shown}:{n}"
        text = _strip_comment(line).strip()
        if not text:
            continue
        text = _substitute(text, where, env)
        if text.startswith("include ") or text == "include":
            name = text[len("include") :].strip()
            if not name:
                raise JobFileError(where, "include", "needs a file name (include other.fio)")
            target = Path(name) if Path(name).is_absolute() else base / name
            if target.resolve() in seen:
                raise JobFileError(where, "include", f"{name!r} includes itself", name)
            if depth >= _INCLUDE_DEPTH:
                raise JobFileError(where, "include", f"more than {_INCLUDE_DEPTH} levels of include", name)
            if not target.is_file():
                raise JobFileError(where, "include", f"{str(target)!r} is not a file", name)
            out.extend(_read_lines(target, env, depth + 1, seen, str(target)))
            continue
        out.append((where, text))
    return out


def _sections(lines: list[tuple[str, str]]) -> list[_Section]:
    sections: list[_Section] = []
    for where, text in lines:
        if text.startswith("["):
            if not text.endswith("]") or len(text) < 3:
                raise JobFileError(where, "", f"{text!r} is not a section header ([global] or [jobname])")
            sections.append(_Section(text[1:-1].strip(), where, []))
            continue
        key, eq, value = text.partition("=")
        key = key.strip()
        if not sections:
            raise JobFileError(where, key, "is outside a section; put it under [global] or a [job]")
        sections[-1].items.append((key, value.strip() if eq else None, where))
    return sections


def _cmdline_sections(args: Sequence[str], env: Mapping[str, str]) -> tuple[list[_Section], list[str]]:
    """fio's command-line form: options before the first ``--name`` are global, each ``--name`` starts a
    job, anything not starting with ``--`` is a job file. Also the sections ``--section`` picks."""
    sections: list[_Section] = []
    picked: list[str] = []
    cmd_global = _Section("global", "command line", [])
    current = cmd_global
    i = 0
    while i < len(args):
        arg = args[i]
        where = f"command line ({arg})"
        if not arg.startswith("--"):
            path = Path(arg)
            sections.extend(_sections(_read_lines(path, env, 0, (), arg)))
            # Options after a job file and before the next --name apply to the jobs that follow.
            current = _Section("global", where, [])
            sections.append(current)
            i += 1
            continue
        key, eq, value = arg[2:].partition("=")
        text: str | None = value if eq else None
        if key == "section":  # fio's --section=NAME: run only the job sections named
            if not eq and i + 1 < len(args) and not args[i + 1].startswith("--"):
                value, i = args[i + 1], i + 1
            if not value:
                raise JobFileError("command line", "section", "needs a job section's name (--section=NAME)")
            picked.append(value)
            i += 1
            continue
        # `--name a` as well as `--name=a`, for options that take a value.
        option = OPTIONS.get(key)
        if (
            not eq
            and option is not None
            and option.kind != "unsupported"
            and not option.flag
            and i + 1 < len(args)
            and not args[i + 1].startswith("--")
        ):
            text = args[i + 1]
            i += 1
        if key == "name":
            if text is None:
                raise JobFileError("command line", "name", "needs a value (--name=job)")
            # fio lists --name among the job's options (a job file's section header it does not).
            current = _Section(text, where, [("name", text, where)])
            sections.append(current)
        else:
            current.items.append((key, text, where))
        i += 1
    if sections and sections[-1].name == "global" and sections[-1].items:
        # fio options after the last job file would apply only to jobs given after them: there are none
        key, text, where = sections[-1].items[0]
        raise JobFileError(
            where,
            key,
            "options after a job file apply to the jobs that follow it, and none do: give them first",
        )
    return ([cmd_global, *sections] if cmd_global.items else sections), picked


def _pick(sections: list[_Section], picked: list[str]) -> list[_Section]:
    """The ``[global]`` sections and the job sections ``--section`` named (all of them without it)."""
    if not picked:
        return sections
    names = [s.name for s in sections if s.name != "global"]
    missing = [p for p in picked if p not in names]
    if missing:
        sections_are = f"the job sections are {', '.join(names)}"
        raise JobFileError("command line", "section", f"no job section {missing[0]!r}; {sections_are}")
    return [s for s in sections if s.name == "global" or s.name in picked]


# Resolving sections into jobs.


def _lookup(key: str, where: str) -> Option:
    option = OPTIONS.get(key)
    if option is None:
        raise JobFileError(
            where, key, f"is not a fio option ssdlab knows; {nearest(key, supported_names(), 'supported')}"
        )
    if option.kind == "unsupported":
        raise JobFileError(
            where,
            key,
            f"not supported yet (ssdlab has {option.note}); supported: {', '.join(supported_names())}",
        )
    return option


def _convert(s: _Setting, kb_base: int) -> object:
    try:
        return s.option.convert(s.text, kb_base)
    except OptionValueError as e:
        raise JobFileError(s.where, s.key, str(e), s.text) from None


def _resolve(sections: list[_Section], source: str) -> JobFile:
    global_settings: dict[str, _Setting] = {}
    global_options: dict[str, str] = {}
    jobs: list[FioJob] = []
    ignored: dict[tuple[str, str, str], Ignored] = {}
    for section in sections:
        settings = {}
        for key, text, where in section.items:
            option = _lookup(key, where)
            settings[option.name] = _Setting(key, text, where, option)
        if section.name == "global":
            global_settings.update(settings)
            global_options.update({k: t for k, t, _ in section.items if t is not None})
            continue
        merged = {**global_settings, **settings}
        job = _job(section, merged, ignored)
        jobs.append(job)
    if not jobs:
        where = next((s.where for s in sections if s.items), source)  # an empty file: its name
        raise JobFileError(where, "", "has no job section ([global] alone runs nothing)")
    _place(jobs)
    return JobFile(jobs, global_options, list(ignored.values()))


def _job(
    section: _Section, merged: dict[str, _Setting], ignored: dict[tuple[str, str, str], Ignored]
) -> FioJob:
    kb_setting = merged.get("kb_base")
    kb_base = cast(int, _convert(kb_setting, 1024)) if kb_setting else 1024
    kwargs: dict[str, object] = dict(FIO_DEFAULTS)
    field_where: dict[str, _Setting] = {}
    control: dict[str, object] = {}
    for s in merged.values():
        value = _convert(s, kb_base)
        field_where[s.option.field] = s
        if s.option.kind == "workload" and isinstance(value, Fields):
            kwargs.update(value)
            field_where.update(dict.fromkeys(value, s))
        elif s.option.kind == "workload":
            kwargs[s.option.field] = value
        elif s.option.kind == "job":
            control[s.option.name] = value
        else:  # noted: accepted, changes nothing, said in the output
            text = "" if s.text is None else s.text
            ignored.setdefault((s.key, text, s.where), Ignored(s.key, text, s.where, s.option.note))
    if control.get("do_verify") is False:  # fio: verify then checks nothing after the writes
        kwargs["verify"] = False
    if kwargs.get("verify") and kwargs.get("time_based"):
        s = merged["verify"]
        why = "the read-back never starts: the write phase uses all of runtime (fio warns the same)"
        ignored.setdefault((s.key, s.text or "", s.where), Ignored(s.key, s.text or "", s.where, why))
    if control.get("group_reporting"):  # fio judges a reporting group's steady state as one
        kwargs["steadystate_group"] = True
    logs = {
        kind: str(control[f"write_{kind}_log"] or control.get("name", section.name))
        for kind in ("bw", "iops", "lat")
        if f"write_{kind}_log" in control
    }
    if logs:
        # fio averages a log over log_avg_msec (here: one interval of the job's series), or logs every IO
        # (here: the job keeps an IO log)
        avg = cast(int, control.get("log_avg_msec", 0))
        if avg:
            kwargs["interval"] = f"{avg}ms"
        else:
            kwargs["log_ios"] = True
    try:
        workload = Workload(**kwargs)  # type: ignore[arg-type]
    except SsdlabError as e:
        name = getattr(e, "field", "")
        # the first problem: a second one about the same option only restates it
        message = str(e).splitlines()[0].removeprefix(f"{name}: ")
        bad = field_where.get(name)
        if bad is None:
            raise JobFileError(section.where, name, message) from None
        raise JobFileError(bad.where, bad.key, message, bad.text) from None
    wait_for = control.get("wait_for")
    return FioJob(
        name=str(control.get("name", section.name)),
        where=section.where,
        workload=workload,
        numjobs=cast(int, control.get("numjobs", 1)),
        options={k: t for k, t, _ in section.items if t is not None},
        description=str(control.get("description", "")),
        # From [global], stonewall applies to every job (each runs after the one before), as in fio.
        stonewall=bool(control.get("stonewall", False)),
        new_group=bool(control.get("new_group", False)),
        wait_for=None if wait_for is None else str(wait_for),
        group_reporting=bool(control.get("group_reporting", False)),
        percentiles=cast(tuple[float, ...], control.get("percentile_list", DEFAULT_PERCENTILES)),
        sources={name: f"{s.where}: {s.key}" for name, s in field_where.items()},
        logs=logs,
        per_job_logs=bool(control.get("per_job_logs", True)),
        log_offset=bool(control.get("log_offset", False)),
    )


def _place(jobs: list[FioJob]) -> None:
    """Phases (what runs at once) and reporting groups, as fio orders them."""
    phase_of: dict[str, int] = {}
    current = 0
    last = 0
    group = 0
    for i, job in enumerate(jobs):
        if i and job.stonewall:
            current = last + 1
        if i and (job.stonewall or job.new_group):
            group += 1
        phase = current
        if job.wait_for is not None:
            if job.wait_for not in phase_of:
                where = job.sources.get("wait_for", job.where).rpartition(": ")[0] or job.where
                message = f"no job named {job.wait_for!r} before this one"
                raise JobFileError(where, "wait_for", message, job.wait_for)
            phase = max(phase, phase_of[job.wait_for] + 1)
        job.phase, job.groupid = phase, group
        phase_of.setdefault(job.name, phase)
        last = max(last, phase)
    # A group reported as one is measured in one run: it must not span phases.
    for gid in {j.groupid for j in jobs}:
        members = [j for j in jobs if j.groupid == gid]
        if not any(j.group_reporting for j in members):
            continue
        if len({j.phase for j in members}) > 1:
            raise JobFileError(
                members[0].where,
                "group_reporting",
                "a group reported as one must run at once; with wait_for splitting it across phases this "
                "is not supported yet (drop group_reporting, or start a new group with new_group)",
            )
        for j in members:
            j.group_reporting = True


# Entry points.


def parse_jobfile_text(
    text: str,
    name: str = "<job file>",
    env: Mapping[str, str] | None = None,
    base: str | os.PathLike[str] = ".",
) -> JobFile:
    """Jobs from job-file text; ``name`` is how errors refer to it, ``base`` where includes are found.

    Examples
    --------
    >>> jf = parse_jobfile_text("[a]\\nrw=randwrite\\nsize=${SZ}\\nnumjobs=2\\n", env={"SZ": "1g"})
    >>> jf.jobs[0].workload.size, jf.jobs[0].numjobs
    (1073741824, 2)
    """
    lines = _lines_of(text, name, Path(base), os.environ if env is None else env, 0, ())
    return _resolve(_sections(lines), name)


def load_jobs(args: Sequence[str], env: Mapping[str, str] | None = None) -> JobFile:
    """Jobs from what follows ``ssdlab fio``: job files and fio's ``--option=value`` form, in order.

    Examples
    --------
    >>> jf = load_jobs(["--bs=4k", "--size=1g", "--name=a", "--rw=randread", "--iodepth=32",
    ...                 "--name=b", "--rw=randwrite"])
    >>> [(j.name, j.workload.rw, j.workload.iodepth, j.workload.bs) for j in jf.jobs]
    [('a', 'randread', 32, 4096), ('b', 'randwrite', 1, 4096)]
    >>> [j.name for j in load_jobs(["--size=1g", "--name=a", "--name=b", "--section=b"]).jobs]
    ['b']
    """
    if not args:
        raise JobFileError("command line", "", "give a job file or fio options (--name=job --rw=...)")
    sections, picked = _cmdline_sections(args, os.environ if env is None else env)
    return _resolve(_pick(sections, picked), " ".join(args))
