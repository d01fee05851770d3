"""Figures of the scripting commands, each beside its reference in the same run.

    python benchmarks/commands.py               # 100,000 items; peak RSS at 1,000,000
    python benchmarks/commands.py --quick       # a smoke run at 2,000 items

``run.py`` calls :func:`measure` for its figures 9–11; alone, this prints them.

- ``get items -o jsonl`` against ``curl -s … | jq -c '.items[]'`` on the same emulator,
  both writing to a file, from process start to exit (ours fetches its token too; the
  curl command is given one);
- process start → first line of ``get webhooks -o json`` against a minimal httpx script
  making the same two requests (token, list) and printing the answer;
- peak resident memory of ``get items -o jsonl`` with 1,000,000 items (``wait4``).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import ROOT, EmulatorProcess, isolated_env

HERE = Path(__file__).resolve().parent
MB = 1024 * 1024

REFERENCE_SCRIPT = """\
import os, sys
sys.modules["httpx._main"] = None  # as the app does: httpx's own command line stays out
import httpx
env = os.environ
with httpx.Client(timeout=60) as client:
    token = client.post(
        env["TOKENSALES_AUTH_URL"] + "/auth/getAccessToken",
        json={"apiKey": env["TOKENSALES_API_KEY"], "apiSecret": env["TOKENSALES_API_SECRET"]},
    ).json()["accessToken"]
    answer = client.get(
        env["TOKENSALES_BASE_URL"] + "/v1/platform-webhooks",
        headers={"Authorization": "Bearer " + token},
    )
    sys.stdout.write(answer.text + "\\n")
    sys.stdout.flush()
"""


def first_line(args: list[str], env: dict[str, str]) -> float:
    """Seconds from just before starting ``args`` to its first line on stdout."""
    started = time.perf_counter()
    process = subprocess.Popen(args, env=env, cwd=ROOT, stdout=subprocess.PIPE)
    assert process.stdout is not None
    line = process.stdout.readline()
    took = time.perf_counter() - started
    process.stdout.read()
    if process.wait(60) != 0 or not line:
        raise RuntimeError(f"{args} failed")
    return took


def timed(
    args: list[str], env: dict[str, str], out: Path, *, shell: bool = False
) -> dict[str, Any]:
    """Seconds from start to exit, the peak RSS of the process (not of a shell's
    children) and the lines written to ``out``."""
    with out.open("wb") as sink:
        started = time.perf_counter()
        process = subprocess.Popen(
            args if not shell else ["bash", "-c", args[0]],
            env=env,
            cwd=ROOT,
            stdout=sink,
            stderr=subprocess.PIPE,
        )
        _pid, status, usage = os.wait4(process.pid, 0)
        took = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{args} failed: {process.stderr.read().decode()[-2000:]}")  # type: ignore[union-attr]
    with out.open("rb") as written:
        lines = sum(chunk.count(b"\n") for chunk in iter(lambda: written.read(1 << 20), b""))
    return {"seconds": took, "peak": usage.ru_maxrss * 1024, "lines": lines}


def entry_point() -> list[str]:
    """How a user starts the command: the installed script, else ``python -m``."""
    script = Path(sys.executable).parent / "tokensales-tui"
    return [str(script)] if script.exists() else [sys.executable, "-m", "tokensales_tui"]


def token(emulator: EmulatorProcess) -> str:
    import httpx

    env = emulator.env
    answer = httpx.post(
        env["TOKENSALES_AUTH_URL"] + "/auth/getAccessToken",
        json={"apiKey": env["TOKENSALES_API_KEY"], "apiSecret": env["TOKENSALES_API_SECRET"]},
        timeout=60,
    )
    return str(answer.json()["accessToken"])


def measure(
    folder: Path, env: dict[str, str], *, items: int, big: int, reps: int, startups: int
) -> dict[str, Any]:
    """Every figure of the commands; ``env`` is the isolated environment of the children."""
    if not (shutil.which("curl") and shutil.which("jq")):
        raise RuntimeError("the references need curl and jq on PATH")
    out = folder / "out.jsonl"
    command = entry_point()
    result: dict[str, Any] = {"items": items, "big": big}
    print(f"commands: {items:,} items", flush=True)
    with EmulatorProcess(items) as emulator:
        child = {**env, **emulator.env}
        reference = (
            f"curl -s -H {shlex.quote('Authorization: Bearer ' + token(emulator))} "
            f"{shlex.quote(emulator.url + '/v1/items')} | jq -c '.items[]'"
        )
        ours_args = [*command, "get", "items", "-o", "jsonl"]
        timed(ours_args, child, out)  # warm the emulator's cache and the bytecode
        ours, shell = [], []
        for _ in range(reps):
            ours.append(timed(ours_args, child, out))
            shell.append(timed([reference], child, out, shell=True))
        if {run["lines"] for run in ours + shell} != {items}:
            raise RuntimeError("the two sides did not print the same number of lines")
        result["jsonl"] = {"ours": ours, "reference": shell}

        probe = folder / "reference_probe.py"
        probe.write_text(REFERENCE_SCRIPT)
        start = {"ours": [], "reference": []}
        first_line([*command, "get", "webhooks", "-o", "json"], child)
        first_line([sys.executable, str(probe)], child)
        for _ in range(startups):  # interleaved, so a burst of load hits both
            start["ours"].append(first_line([*command, "get", "webhooks", "-o", "json"], child))
            start["reference"].append(first_line([sys.executable, str(probe)], child))
        result["first_line"] = start
    print(f"commands: {big:,} items, peak memory", flush=True)
    with EmulatorProcess(big) as emulator:
        child = {**env, **emulator.env}
        runs = [timed([*command, "get", "items", "-o", "jsonl"], child, out) for _ in range(2)]
        if {run["lines"] for run in runs} != {big}:
            raise RuntimeError(f"get items -o jsonl printed {runs[0]['lines']:,} lines")
        result["big_jsonl"] = runs
    out.unlink(missing_ok=True)
    return result


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _s(values: list[float]) -> str:
    middle = _median(values)
    return f"{middle * 1000:,.0f} ms" if middle < 1 else f"{middle:,.2f} s"


def rows(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The figures, as ``run.py`` prints them."""
    items, big = result["items"], result["big"]
    ours = [run["seconds"] for run in result["jsonl"]["ours"]]
    shell = [run["seconds"] for run in result["jsonl"]["reference"]]
    jsonl_ratio = _median(ours) / _median(shell)
    start = result["first_line"]
    start_ratio = _median(start["ours"]) / _median(start["reference"])
    peaks = [run["peak"] for run in result["big_jsonl"]]
    return [
        {
            "n": 9,
            "figure": f"`get items -o jsonl`, {items:,} items, start → exit",
            "ours": _s(ours),
            "reference": f"{_s(shell)} `curl -s … | jq -c '.items[]'`",
            "ratio": f"{jsonl_ratio:.2f}×",
            "target": "≤ 1.0×",
            "pass": jsonl_ratio <= 1.0,
        },
        {
            "n": 10,
            "figure": "process start → first line of `get webhooks -o json`",
            "ours": _s(start["ours"]),
            "reference": f"{_s(start['reference'])} minimal httpx script, same two requests",
            "ratio": f"{start_ratio:.2f}×",
            "target": "≤ 1.5×",
            "pass": start_ratio <= 1.5,
        },
        {
            "n": 11,
            "figure": f"peak RSS of `get items -o jsonl`, {big:,} items",
            "ours": f"{_median(peaks) / MB:,.0f} MB"
            f" ({_s([run['seconds'] for run in result['big_jsonl']])})",
            "reference": "—",
            "ratio": "—",
            "target": "≤ 300 MB",
            "pass": _median(peaks) <= 300 * MB,
        },
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="2,000 items, few repetitions")
    parser.add_argument("--items", type=int, help="items of figure 9 (100000)")
    parser.add_argument("--big", type=int, help="items of figure 11 (1000000)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="tokensales-commands-"))
    try:
        env = isolated_env(folder / "home")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
        result = measure(
            folder,
            env,
            items=args.items or (2_000 if args.quick else 100_000),
            big=args.big or (20_000 if args.quick else 1_000_000),
            reps=2 if args.quick else 5,
            startups=3 if args.quick else 15,
        )
        for row in rows(result):
            verdict = "PASS" if row["pass"] else "FAIL"
            print(
                f"{row['n']:>2}  {row['figure']}: {row['ours']} | {row['reference']} | "
                f"{row['ratio']} (target {row['target']}) {verdict}"
            )
        return 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
