"""fio's job files and command line in, fio's JSON and text out: ``ssdlab fio``.

Examples
--------
>>> import ssdlab
>>> from ssdlab.fio import parse_jobfile_text, run_jobfile, to_json
>>> jf = parse_jobfile_text("[r]\\nrw=randread\\nsize=1g\\nruntime=20ms\\niodepth=8\\n")
>>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16})
>>> doc = to_json(run_jobfile(drive, jf))
>>> doc["jobs"][0]["jobname"], doc["jobs"][0]["read"]["iops"] > 0
('r', True)
"""

from ssdlab.fio.jobfile import FioJob, JobFile, JobFileError, load_jobs, parse_jobfile_text
from ssdlab.fio.output import format_normal, to_json
from ssdlab.fio.runner import FioEntry, FioRun, run_jobfile

__all__ = [
    "FioEntry",
    "FioJob",
    "FioRun",
    "JobFile",
    "JobFileError",
    "format_normal",
    "load_jobs",
    "parse_jobfile_text",
    "run_jobfile",
    "to_json",
]
