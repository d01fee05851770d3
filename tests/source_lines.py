"""Where a pattern stands in the package's source: for the tests that make sure something
is done in one place only."""

from __future__ import annotations

import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "tokensales_tui"


def lines_matching(pattern: str, *, except_in: str, under: Path = PACKAGE) -> list[str]:
    """``file:line`` of each line under ``under`` that ``pattern`` matches, the file
    named ``except_in`` aside."""
    return [
        f"{path.relative_to(under)}:{number}"
        for path in sorted(under.rglob("*.py"))
        if path.name != except_in
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(pattern, text)
    ]
