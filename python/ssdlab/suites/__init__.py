"""Reviewer benchmark suites, each a Python procedure over one :class:`ssdlab.Drive`."""

from ssdlab.suites.cdm import CDM_VERSIONS, CdmResult, CdmRow, CdmTest, run_cdm
from ssdlab.suites.fill import FillResult, compare_fill_curve, run_fill
from ssdlab.suites.snia import SniaIopsResult, run_snia_iops

__all__ = [
    "CDM_VERSIONS",
    "CdmResult",
    "CdmRow",
    "CdmTest",
    "FillResult",
    "SniaIopsResult",
    "compare_fill_curve",
    "run_cdm",
    "run_fill",
    "run_snia_iops",
]
