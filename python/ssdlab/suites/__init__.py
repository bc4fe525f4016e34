"""Reviewer benchmark suites, each a Python procedure over one :class:`ssdlab.Drive`."""

from ssdlab.suites.cdm import CDM_VERSIONS, CdmResult, CdmRow, CdmTest, run_cdm

__all__ = ["CDM_VERSIONS", "CdmResult", "CdmRow", "CdmTest", "run_cdm"]
