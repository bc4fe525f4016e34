"""Write docs/counters.md from the engine's counter registry (``ssdlab.counters.docs_markdown``).

    .venv/bin/python scripts/counters_doc.py        # or: make docs

tests/test_counters.py fails when the file is not what this writes.
"""

from __future__ import annotations

from pathlib import Path

from ssdlab.counters import docs_markdown

DOC = Path(__file__).resolve().parent.parent / "docs" / "counters.md"


def main() -> None:
    DOC.write_text(docs_markdown(), encoding="utf-8")
    print(f"wrote {DOC}")


if __name__ == "__main__":
    main()
