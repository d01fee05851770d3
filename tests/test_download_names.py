"""The names a browser saves a download under (as Chromium was seen to save them)."""

from __future__ import annotations

import pytest

from tokensales_tui.download_names import browser_change

KEPT = ["Q3; final.csv", "café.csv", "日本.csv", "a~b.csv", "a%20b.csv", "a'b,c=d.csv", "x"]
"""Names Chromium saved as they were, once sent whole (a ; cut them before)."""

CHANGED = {
    'a"b.csv': "a_b.csv",
    "x:y.csv": "x_y.csv",
    "a*b?.csv": "a_b_.csv",
    "a|b<c>.csv": "a_b_c_.csv",
    "a\\b.csv": "a_b.csv",
    "~x.csv": "_x.csv",
    " lead.csv": "_lead.csv",
    "trail.csv ": "trail.csv_",
    ".hidden.csv": "hidden.csv",
    "trail.csv.": "trail.csv",
    "a\u200bb.csv": "a_b.csv",
    "a\u202eb.csv": "a_b.csv",
    "x.csv\u00a0": "x.csv_",
    "x~": "x_",
    "a\x85b.csv": "a_b.csv",
}
"""Names Chromium saved under another (the header giving them whole), and what it saved."""


@pytest.mark.parametrize("name", KEPT)
def test_a_name_a_browser_keeps_passes(name: str) -> None:
    assert browser_change(name) is None


@pytest.mark.parametrize("name", sorted(CHANGED))
def test_a_name_a_browser_changes_is_said(name: str) -> None:
    assert (browser_change(name) or "").startswith("a browser ")
