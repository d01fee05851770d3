"""The benchmark script runs from start to end (at a tiny size: its figures mean nothing).

The benchmark itself is not a test: its timings depend on the machine. This only checks
that ``python benchmarks/run.py`` still works, prints every figure and writes its
Markdown.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from .browser import chromium_missing

ROOT = Path(__file__).resolve().parent.parent


def test_benchmark_runs_at_a_tiny_size(tmp_path: Path) -> None:
    out = tmp_path / "results.md"
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "run.py"), "--quick", "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    # Figures 9–11 (the scripting commands) compare with curl and jq, when installed.
    commands = shutil.which("curl") and shutil.which("jq")
    # Figure 17 (serve --demo in Chromium) when Chromium is installed, as in CI.
    browser = chromium_missing() is None
    figures = [
        *range(1, 9),
        *(range(9, 12) if commands else ()),
        *range(12, 17),
        *((17,) if browser else ()),
        *range(18, 25),
        # Figure 25 (a session on one processor) where there is more than one.
        *((25,) if hasattr(os, "sched_getaffinity") and len(os.sched_getaffinity(0)) > 1 else ()),
    ]
    for number in figures:
        assert any(line.startswith(f"{number}  ") for line in lines), done.stdout
    markdown = out.read_text(encoding="utf-8")
    assert markdown.count("| PASS |") + markdown.count("| FAIL |") == len(figures)
    assert "## Definitions" in markdown
    assert "token requests for 100 concurrent calls" in markdown
