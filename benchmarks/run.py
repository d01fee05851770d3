"""Speed, memory and scaling of tokensales-tui, side by side with references; see README.

    python benchmarks/run.py            # everything (a few minutes; 1,000,000 items ~5 more)
    python benchmarks/run.py --quick    # a small smoke run (2,000 items, one repetition)
    python benchmarks/run.py --sizes 1000,10000   # choose the scaling sizes

Prints a table and writes it, with the scaling table and the definitions, to
``benchmarks/results.md`` (``--out`` elsewhere). Every measure runs in fresh processes:
the app on a standalone emulator on 127.0.0.1, headless at 120×40, driven the way a
terminal drives it. Each figure that can be is a ratio against a reference measured in
the same run, so a busy machine slows both sides.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import commands
import webhook_flood
from harness import ROOT, SIZE, EmulatorProcess, body_arrival, fetch_items_body, isolated_env

sys.path.insert(0, str(ROOT))
from tests.browser import chromium_missing

HERE = Path(__file__).resolve().parent

MB = 1024 * 1024
WORDS = ("edition", "pass", "gems")


@dataclass
class Options:
    items: int
    sizes: list[int]
    sessions: int
    loads: int
    startups: int
    pages: int
    refs: int
    out: Path
    quick: bool
    visidata: str | None = None


class Runner:
    """Starts the measuring processes with an isolated home and a bytecode cache."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.env = isolated_env(folder / "home")
        # Installed apps start from compiled bytecode: let the children cache theirs
        # (outside the source tree), whatever PYTHONDONTWRITEBYTECODE says here.
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")

    def json(self, *args: str, timeout: float = 3600) -> Any:
        """Run a benchmark script; its last line of output, as JSON."""
        done = subprocess.run(
            [sys.executable, *args],
            env=self.env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if done.returncode != 0 or not done.stdout.strip():
            raise RuntimeError(f"{' '.join(args[:2])} failed:\n{done.stderr[-4000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])

    def startup(self, kind: str) -> float:
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, str(HERE / "startup_probe.py"), kind],
            env=self.env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"start-up probe {kind} failed:\n{done.stderr[-4000:]}")
        return float(done.stdout.strip().splitlines()[-1]) - started


# --- statistics and formatting ------------------------------------------------------


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    place = share * (len(ordered) - 1)
    low = int(place)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (place - low)


def spread(values: Sequence[float], unit: str, scale: float = 1.0, digits: int = 0) -> str:
    if not values:
        return "—"

    def number(value: float) -> str:
        return f"{value * scale:,.{digits}f}"

    if len(values) == 1:
        return f"{number(values[0])} {unit}"
    return f"{number(median(values))} {unit} ({number(min(values))}–{number(max(values))})"


def seconds(values: Sequence[float]) -> str:
    if values and median(values) < 1:
        return spread(values, "ms", 1000)
    return spread(values, "s", 1, 2)


def ratio(value: float) -> str:
    return "—" if value != value else f"{value:.2f}×"


# --- the measures ----------------------------------------------------------------------


def measure_startup(runner: Runner, options: Options) -> dict[str, list[float]]:
    print("start-up: warming the bytecode cache", flush=True)
    for kind in ("app", "minimal"):
        runner.startup(kind)
    times: dict[str, list[float]] = {"app": [], "minimal": []}
    for _ in range(options.startups):
        for kind in times:  # interleaved, so a burst of load hits both
            times[kind].append(runner.startup(kind))
    return times


def browser_rows(runner: Runner, reps: int) -> list[dict[str, Any]]:
    """Figure 17: ``serve --demo`` in Chromium against the same app headless."""
    print("serve --demo in Chromium", flush=True)
    runner.startup("rows")  # warm-up
    served: list[float] = []
    headless: list[float] = []
    for _ in range(reps):  # interleaved, so a burst of load hits both
        served += runner.json(str(HERE / "browser.py"), "1", timeout=600)
        headless.append(runner.startup("rows"))
    served_ratio = median(served) / median(headless)
    return [
        {
            "n": 17,
            "figure": "`serve --demo`: page request → the Webhooks rows drawn in Chromium",
            "ours": seconds(served),
            "reference": f"{seconds(headless)} the same app headless: process start → frame"
            " with the rows",
            "ratio": ratio(served_ratio),
            "target": "≤ 2×",
            "pass": served_ratio <= 2,
        }
    ]


def body_file(runner: Runner, emulator: EmulatorProcess) -> tuple[Path, float, int]:
    body, transfer = fetch_items_body(emulator)
    path = runner.folder / f"items-{emulator.items}.json"
    path.write_bytes(body)
    return path, transfer, len(body)


def session(
    runner: Runner,
    emulator: EmulatorProcess,
    *,
    measure: str,
    loads: int,
    words: Sequence[str],
    pages: int,
    one_processor: bool = False,
) -> dict[str, Any]:
    return runner.json(
        str(HERE / "app_session.py"),
        "--env",
        json.dumps(emulator.env),
        "--items",
        str(emulator.items),
        "--reps",
        str(loads),
        "--pages",
        str(pages),
        "--measure",
        measure,
        "--words",
        ",".join(words),
        *(["--one-processor"] if one_processor else []),
    )


def measure_size(
    runner: Runner,
    items: int,
    *,
    sessions: int,
    loads: int,
    pages: int,
    refs: int,
    json_reps: int,
    datatable: bool,
    full: bool,
    visidata: str | None = None,
    one_processor: bool = False,
) -> dict[str, Any]:
    """Every measure that depends on the number of items, at ``items``; with
    ``one_processor``, a session on one processor too (figure 25)."""
    out: dict[str, Any] = {"items": items, "sessions": []}
    print(f"{items:,} items: starting the emulator", flush=True)
    with EmulatorProcess(items) as emulator:
        path, transfer, size = body_file(runner, emulator)
        out["transfer_s"] = transfer
        out["arrival_s"] = body_arrival(emulator, size)
        out["body_bytes"] = size
        for number in range(sessions):
            print(f"{items:,} items: app session {number + 1}/{sessions}", flush=True)
            measure = "cold,load,filter,sort" + (
                ",pagedown,syntax,marks,watch,export" if full else ""
            )
            out["sessions"].append(
                session(
                    runner,
                    emulator,
                    measure=measure,
                    loads=loads,
                    words=[WORDS[number % len(WORDS)]],
                    pages=pages,
                )
            )
        if one_processor and hasattr(os, "sched_getaffinity") and len(os.sched_getaffinity(0)) > 1:
            print(f"{items:,} items: app session on one processor", flush=True)
            out["one_processor"] = session(
                runner,
                emulator,
                measure="cold,load",
                loads=2,
                words=[WORDS[0]],
                pages=0,
                one_processor=True,
            )
    print(f"{items:,} items: references", flush=True)
    out["json_loads"] = runner.json(
        str(HERE / "references.py"), "json_loads", str(path), str(json_reps)
    )
    out["data"] = [runner.json(str(HERE / "references.py"), "data", str(path)) for _ in range(refs)]
    if full:
        out["json_data"] = runner.json(str(HERE / "references.py"), "json_data", str(path))
    if visidata:
        print(f"{items:,} items: VisiData", flush=True)
        out["visidata"] = runner.json(
            str(HERE / "references.py"), "visidata", str(path), visidata, str(refs)
        )
    if datatable:
        print(f"{items:,} items: Textual's DataTable", flush=True)
        out["datatable"] = runner.json(
            str(HERE / "references.py"), "datatable", str(path), str(max(refs, 2)), str(pages)
        )
    path.unlink()
    return out


def measure_baseline(runner: Runner, reps: int) -> list[int]:
    """Resident memory of the same app session with no items (for the growth)."""
    with EmulatorProcess(0) as emulator:
        return [
            session(runner, emulator, measure="", loads=0, words=[], pages=0)["memory"]["rss"]
            for _ in range(reps)
        ]


# --- summary ---------------------------------------------------------------------------


def pooled(result: dict[str, Any], key: str, field: str | None = None) -> list[Any]:
    values: list[Any] = []
    for run in result["sessions"]:
        value = run.get(key)
        if value is None:
            continue
        if field is None:
            values += value if isinstance(value, list) else [value]
        else:
            values += [entry[field] for entry in value]
    return values


def summarise(
    main: dict[str, Any],
    startup: dict[str, list[float]],
    baseline: list[int],
    tokens: dict[str, Any],
) -> list[dict[str, Any]]:
    rows = []
    items = main["items"]

    app, minimal = startup["app"], startup["minimal"]
    start_ratio = median(app) / median(minimal)
    rows.append(
        {
            "n": 1,
            "figure": "process start → first frame of `tokensales-tui --demo`",
            "ours": seconds(app),
            "reference": f"{seconds(minimal)} minimal Textual app, five empty tabs",
            "ratio": ratio(start_ratio),
            "target": "≤ 1.5×",
            "pass": start_ratio <= 1.5,
        }
    )

    loads = pooled(main, "load", "seconds")
    loads_json = main["json_loads"]["seconds"]
    load_ratio = median(loads) / median(loads_json)
    rows.append(
        {
            "n": 2,
            "figure": f"{items:,} items: list request sent → rows visible",
            "ours": seconds(loads),
            "reference": f"{seconds(loads_json)} `json.loads` of the same body, collector"
            f" off (on: {seconds(main['json_loads']['gc_on'])}; `msgspec.json.decode`:"
            f" {seconds(main['json_loads']['msgspec'])})",
            "ratio": ratio(load_ratio),
            "target": "≤ 4×, ≤ 1 s",
            "pass": load_ratio <= 4 and median(loads) <= 1.0,
        }
    )

    keys = pooled(main, "filter", None)
    typed = [t for entry in keys for t in entry["typed_s"]]
    deleted = [t for entry in keys for t in entry["deleted_s"]]
    every = typed + deleted
    p50, p95 = percentile(every, 0.5), percentile(every, 0.95)
    rows.append(
        {
            "n": 3,
            "figure": f"filter keystroke → updated frame, {items:,} rows ({len(every)} keys)",
            "ours": f"p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms (max {max(every) * 1000:.0f})",
            "reference": "—",
            "ratio": "—",
            "target": "p95 ≤ 60 ms",
            "pass": p95 <= 0.060,
        }
    )

    fps = [entry["fps"] for entry in pooled(main, "pagedown")]
    table_fps = main["datatable"]["fps"]
    fps_ratio = median(fps) / median(table_fps)
    rows.append(
        {
            "n": 4,
            "figure": f"page-down frames per second, {items:,} rows",
            "ours": spread(fps, "fps", 1, 1),
            "reference": f"{spread(table_fps, 'fps', 1, 1)} Textual `DataTable`, same rows",
            "ratio": ratio(fps_ratio),
            "target": "≥ 1.8×, ≥ 30 fps",
            "pass": fps_ratio >= 1.8 and median(fps) >= 30,
        }
    )

    sorts = pooled(main, "sort")
    table_sorts = main["datatable"]["sort_s"]
    sort_ratio = median(sorts) / median(table_sorts)
    rows.append(
        {
            "n": 5,
            "figure": f"sort {items:,} rows by a text column (title)",
            "ours": seconds(sorts),
            "reference": f"{seconds(table_sorts)} `DataTable.sort`",
            "ratio": ratio(sort_ratio),
            "target": "≤ 0.3×",
            "pass": sort_ratio <= 0.3,
        }
    )

    rss = [run["memory"]["rss"] for run in main["sessions"]]
    growth = [value - median(baseline) for value in rss]
    data = [entry["bytes"] for entry in main["data"]]
    memory_ratio = median(growth) / median(data)
    rows.append(
        {
            "n": 6,
            "figure": f"resident memory with {items:,} items loaded (growth over the app with none)",
            "ours": f"{spread(growth, 'MB', 1 / MB)}; whole process {median(rss) / MB:,.0f} MB;"
            f" {median(growth) / main['body_bytes']:.2f}× the {main['body_bytes'] / MB:,.0f} MB body",
            "reference": f"{spread(data, 'MB', 1 / MB)} the decoded data alone",
            "ratio": ratio(memory_ratio),
            "target": "≤ 1.3×",
            "pass": memory_ratio <= 1.3,
        }
    )

    stalls = pooled(main, "load", "stall_s")
    frames = pooled(main, "load", "frames")
    rows.append(
        {
            "n": 7,
            "figure": f"longest event-loop stall while {items:,} items load",
            "ours": f"{seconds(stalls)}; {median(frames):.0f} frames drawn meanwhile",
            "reference": "—",
            "ratio": "—",
            "target": "≤ 100 ms",
            "pass": median(stalls) <= 0.100,
        }
    )

    rows += power_rows(main)

    counts = {
        kind: [run["token_requests_on_the_wire"] for run in runs] for kind, runs in tokens.items()
    }
    client_counts = [
        run["token_requests_by_the_client"] for runs in tokens.values() for run in runs
    ]
    rows.append(
        {
            "n": 8,
            "figure": "token requests for 100 concurrent calls on an expired token",
            "ours": "; ".join(
                f"{kind}: {', '.join(map(str, values))}" for kind, values in counts.items()
            ),
            "reference": "—",
            "ratio": "—",
            "target": "exactly 1",
            "pass": all(value == 1 for values in counts.values() for value in values)
            and all(value == 1 for value in client_counts),
        }
    )
    return rows


def arrival_rows(main: dict[str, Any], big: dict[str, Any]) -> list[dict[str, Any]]:
    """Figures 18–24: rows while the body arrives, memory against the body, no late frame.

    ``big`` is the largest size measured (1,000,000 items in a full run), where the
    targets apply; ``main`` the size of the other figures (the filter keys).
    """
    rows = []
    items = big["items"]
    cold = pooled(big, "cold")
    loads = pooled(big, "load")
    # The body's arrival: read as it comes by httpx's asynchronous client, from the same
    # emulator (harness.body_arrival). Beside it, a plain GET, which also builds the body
    # in memory: the reference of these figures before, several times as long. (In the
    # app the last byte comes later: reading shares the interpreter with decoding.)
    arrival = big["arrival_s"]
    plain = big["transfer_s"]
    after_first = [c["first_rows_s"] - c["first_byte_s"] for c in cold]
    everything = [c["all_rows_s"] / median(arrival) for c in cold]
    usable = [c["usable_s"] / median(arrival) for c in cold]
    in_app = seconds([c["last_byte_s"] for c in cold])
    at = "" if items >= 1_000_000 else " (targets at 1,000,000)"

    def against_plain(values: Sequence[float]) -> str:
        return f"; against a plain GET ({plain:.2f} s), {ratio(median(values) / plain)}"

    rows.append(
        {
            "n": 18,
            "figure": f"{items:,} items, first load (`2` after start-up): first byte → first rows",
            "ours": seconds(after_first),
            "reference": f"{seconds(arrival)} the body's arrival (streamed; a plain GET, the"
            f" body built in memory: {plain:.2f} s; in the app {in_app})",
            "ratio": ratio(median(after_first) / median(arrival)),
            "target": "≤ 0.5 s" + at,
            "pass": median(after_first) <= 0.5,
        }
    )
    rows.append(
        {
            "n": 19,
            "figure": f"{items:,} items, first load: request → every row visible",
            "ours": f"{seconds([c['all_rows_s'] for c in cold])}; the event loop's thread"
            f" busy {seconds([c['loop_cpu_all_rows_s'] for c in cold])} of it",
            "reference": f"{seconds(arrival)} the body's arrival"
            + against_plain([c["all_rows_s"] for c in cold]),
            "ratio": ratio(median(everything)),
            "target": "≤ 1.5×" + at,
            "pass": median(everything) <= 1.5,
        }
    )
    rows.append(
        {
            "n": 20,
            "figure": f"{items:,} items, first load: request → usable (filter and sort from the"
            " index)",
            "ours": seconds([c["usable_s"] for c in cold]),
            "reference": f"{seconds(arrival)} the body's arrival"
            + against_plain([c["usable_s"] for c in cold]),
            "ratio": ratio(median(usable)),
            "target": "≤ 2×" + at,
            "pass": median(usable) <= 2,
        }
    )
    reload_ratio = [load["usable_s"] / median(arrival) for load in loads]
    rows.append(
        {
            "n": 21,
            "figure": f"{items:,} items, reload (`r`): request → rows visible / every row / usable",
            "ours": f"{seconds([x['seconds'] for x in loads])} / "
            f"{seconds([x['all_rows_s'] for x in loads])} / "
            f"{seconds([x['usable_s'] for x in loads])}",
            "reference": f"{seconds(arrival)} the body's arrival (in the app"
            f" {seconds([x['last_byte_s'] for x in loads])})"
            + against_plain([x["usable_s"] for x in loads]),
            "ratio": ratio(median(reload_ratio)) + " (usable)",
            "target": "≤ 2× (usable)" + at,
            "pass": median(reload_ratio) <= 2,
        }
    )
    rss = [run["memory"]["rss"] for run in big["sessions"]]
    peak = [run["memory_end"]["peak"] for run in big["sessions"]]
    body = big["body_bytes"]
    rows.append(
        {
            "n": 22,
            "figure": f"{items:,} items: resident memory, whole process, steady / peak",
            "ours": f"{median(rss) / MB:,.0f} MB / {max(peak) / MB:,.0f} MB",
            "reference": f"{body / MB:,.0f} MB the body",
            "ratio": f"{median(rss) / body:.2f}× / {max(peak) / body:.2f}×",
            "target": "≤ 600 MB / ≤ 800 MB" + at,
            "pass": median(rss) <= 600 * MB and max(peak) <= 800 * MB,
        }
    )
    typed = [t for c in pooled(main, "cold") for t in c["typed_s"]]
    rows.append(
        {
            "n": 23,
            "figure": f"{main['items']:,} items: filter keystroke → frame, from the first key"
            f" after the rows appear ({len(typed)} keys, no deletions)",
            "ours": f"p50 {percentile(typed, 0.5) * 1000:.0f} ms, p95 "
            f"{percentile(typed, 0.95) * 1000:.0f} ms (max {max(typed, default=0) * 1000:.0f})",
            "reference": "—",
            "ratio": "—",
            "target": "p95 ≤ 30 ms",
            "pass": percentile(typed, 0.95) <= 0.030,
        }
    )
    stalls = [c["stall_s"] for c in cold]
    # The settle after the load (collecting its garbage) is a pause a user sees too.
    settles = [c["settle_stall_s"] for c in cold if c.get("settle_stall_s") is not None]
    worst = [max(c["stall_s"], c.get("settle_stall_s") or 0.0) for c in cold]
    # Later, once no key came for 2 s, everything set aside may be walked again.
    walks = [w for run in big["sessions"] for w in run.get("walks_s", [])]
    reloads = [load["stall_s"] for load in loads]  # the old rows let go, the new ones read
    rows.append(
        {
            "n": 24,
            "figure": f"{items:,} items, first load: longest event-loop stall (keys typed"
            " meanwhile); then the settle of the load's garbage; a reload",
            "ours": seconds(stalls)
            + (f"; settle {seconds(settles)}" if settles else "; no settle seen")
            + f"; reload {seconds(reloads)}"
            + (
                f"; walk of everything set aside, with no key for 2 s: {seconds(walks)}"
                f" ({len(walks)} in {len(big['sessions'])} sessions)"
                if walks
                else ""
            ),
            "reference": "—",
            "ratio": "—",
            "target": "≤ 100 ms",
            "pass": median(worst) <= 0.100
            and len(settles) == len(cold)
            and median(reloads) <= 0.100,
        }
    )
    alone = big.get("one_processor")
    if alone is not None:
        first, again = alone["cold"], alone["load"]
        stall = max([first["stall_s"], *(load["stall_s"] for load in again)])
        peak = alone["memory_end"]["peak"]
        rows.append(
            {
                "n": 25,
                "figure": f"{items:,} items on one processor (no index process: the tab"
                " indexes the list): longest event-loop stall, first load / reloads; peak"
                " resident memory",
                "ours": f"{first['stall_s'] * 1000:.0f} ms / "
                + ", ".join(f"{load['stall_s'] * 1000:.0f} ms" for load in again)
                + f"; {peak / MB:,.0f} MB (usable after {first['usable_s']:.2f} s / "
                + ", ".join(f"{load['usable_s']:.2f} s" for load in again)
                + ")",
                "reference": "—",
                "ratio": "—",
                "target": "≤ 100 ms; ≤ 800 MB" + at,
                "pass": stall <= 0.100 and peak <= 800 * MB,
            }
        )
    return rows


def power_rows(main: dict[str, Any]) -> list[dict[str, Any]]:
    """Figures 12–15: the filter language, marks, watch and export."""
    rows = []
    items = main["items"]
    keys = [t for entry in pooled(main, "syntax") for t in entry["typed_s"] + entry["deleted_s"]]
    p50, p95 = percentile(keys, 0.5), percentile(keys, 0.95)
    rows.append(
        {
            "n": 12,
            "figure": f"filter language keystroke → updated frame, {items:,} rows ({len(keys)} keys"
            " of `backstage`, `!pass`, `title:gems`)",
            "ours": f"p50 {p50 * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms (max {max(keys) * 1000:.0f})",
            "reference": "—",
            "ratio": "—",
            "target": "p95 ≤ 60 ms",
            "pass": p95 <= 0.060,
        }
    )
    marks = pooled(main, "marks")
    marked = [t for entry in marks for t in entry["mark_all_s"]]
    cleared = [t for entry in marks for t in entry["clear_s"]]
    rows.append(
        {
            "n": 13,
            "figure": f"mark all {items:,} rows (`ctrl+a`) → frame; clear them",
            "ours": f"{seconds(marked)}; clear {seconds(cleared)}",
            "reference": "—",
            "ratio": "—",
            "target": "≤ 100 ms",
            "pass": median(marked) <= 0.100 and median(cleared) <= 0.100,
        }
    )
    watch = pooled(main, "watch")
    stalls = [entry["stall_s"] for entry in watch]
    blank = sum(entry["blank_frames"] for entry in watch)
    cycle = [entry["seconds"] for entry in watch]
    rows.append(
        {
            "n": 14,
            "figure": f"watched reload of {items:,} items (compared with the rows shown): longest"
            " stall; frames without the rows",
            "ours": f"{seconds(stalls)}; {blank} blank frames; request → compared {seconds(cycle)}",
            "reference": "—",
            "ratio": "—",
            "target": "≤ 100 ms, 0 blank",
            "pass": median(stalls) <= 0.100 and blank == 0,
        }
    )
    export = pooled(main, "export")
    took = [entry["seconds"] for entry in export]
    plain = [entry["reference_s"] for entry in export]
    export_ratio = median(took) / median(plain)
    export_stalls = [entry["stall_s"] for entry in export]
    size = median([entry["bytes"] for entry in export])
    rows.append(
        {
            "n": 15,
            "figure": f"export {items:,} items as JSON Lines ({size / MB:,.0f} MB), in the app;"
            " longest stall",
            "ours": f"{seconds(took)}; stall {seconds(export_stalls)}",
            "reference": f"{seconds(plain)} a loop of `json.dumps` + write, same objects",
            "ratio": ratio(export_ratio),
            "target": "≤ 1.5×, stall ≤ 100 ms",
            "pass": export_ratio <= 1.5 and median(export_stalls) <= 0.100,
        }
    )
    return rows


def scaling_rows(results: list[dict[str, Any]], baseline: list[int]) -> list[list[str]]:
    rows = []
    for result in results:
        cold = pooled(result, "cold")
        loads = pooled(result, "load", "seconds")
        refs = result["json_loads"]
        keys = [
            t for entry in pooled(result, "filter") for t in entry["typed_s"] + entry["deleted_s"]
        ]
        sorts = pooled(result, "sort")
        rss = [run["memory"]["rss"] for run in result["sessions"]]
        peak = [run["memory_end"]["peak"] for run in result["sessions"]]
        growth = [value - median(baseline) for value in rss]
        data = [entry["bytes"] for entry in result["data"]]
        body = result["body_bytes"]
        vd = result.get("visidata", {}).get("seconds", [])
        rows.append(
            [
                f"{result['items']:,}",
                f"{body / MB:,.0f} MB",
                seconds(result["arrival_s"]),
                seconds([result["transfer_s"]]),
                seconds([c["last_byte_s"] for c in cold]),
                seconds([c["first_rows_s"] - c["first_byte_s"] for c in cold]),
                seconds([c["all_rows_s"] for c in cold]),
                seconds([c["usable_s"] for c in cold]),
                seconds(loads),
                seconds(refs["gc_off"]),
                seconds(refs["gc_on"]),
                seconds(refs["msgspec"]),
                seconds(vd) if vd else "not run",
                f"{percentile(keys, 0.5) * 1000:.0f} / {percentile(keys, 0.95) * 1000:.0f} ms",
                seconds([c["stall_s"] for c in cold] + pooled(result, "load", "stall_s")),
                seconds(sorts),
                f"{median(growth) / MB:,.0f} MB",
                f"{median(data) / MB:,.0f} MB",
                f"{median(growth) / body:.2f}×",
                f"{median(rss) / MB:,.0f} / {max(peak) / MB:,.0f} MB",
            ]
        )
    return rows


SCALING_HEADER = [
    "items",
    "body",
    "body arrives (streamed)",
    "a plain GET (body in memory)",
    "in the app (request → last byte)",
    "first byte → first rows",
    "request → every row",
    "request → usable",
    "reload: request → rows",
    "`json.loads`, collector off",
    "collector on",
    "`msgspec.json.decode`",
    "VisiData `vd -b`",
    "filter key p50 / p95",
    "longest stall",
    "sort by title",
    "memory growth",
    "data alone",
    "growth ÷ body",
    "RSS steady / peak",
]


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def plain_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows, strict=True)]
    lines = ["  ".join(str(cell).ljust(width) for cell, width in zip(header, widths, strict=True))]
    lines.append("  ".join("-" * width for width in widths))
    lines += [
        "  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True))
        for row in rows
    ]
    return "\n".join(lines)


FIGURE_HEADER = [
    "#",
    "figure",
    "this app: median (min–max)",
    "reference, same run",
    "ratio",
    "target",
    "result",
]


def figure_cells(rows: list[dict[str, Any]]) -> list[list[str]]:
    return [
        [
            str(row["n"]),
            row["figure"],
            row["ours"],
            row["reference"],
            row["ratio"],
            row["target"],
            "PASS" if row["pass"] else "FAIL",
        ]
        for row in rows
    ]


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import msgspec
    import textual

    return (
        f"{os.cpu_count()} CPUs ({cpu}), Python {platform.python_version()}, "
        f"Textual {textual.__version__}, msgspec {msgspec.__version__}, {platform.system()}"
    )


DEFINITIONS = """\
How each figure is measured (`benchmarks/`; every measure in fresh processes, headless
apps at {size}, the emulator standalone on 127.0.0.1, keys delivered through the
terminal driver's `process_message` as a terminal's input thread does, frames timed to
the end of `App._display` including the ANSI text a terminal would receive):

1. `startup_probe.py`: from just before the process is started to the end of its first
   frame; `tokensales-tui --demo` through its real entry point, against an app with a
   `TabbedContent` of five empty `TabPane`s. Bytecode is cached as on an installed app
   (one unmeasured warm-up each); runs alternate between the two.
2. `app_session.py`: the real app on an environment-only profile, its real API worker,
   client and httpx transport (a pass-through wrapper notes when `GET /v1/items` is
   sent). `r` on the Items tab; from the request being sent to the end of the first
   frame showing the new rows. Reference: `json.loads` of the same body in a fresh
   process with the garbage collector off, as the app decodes (with it on, as Python
   ships, and `msgspec.json.decode` into plain objects, for comparison).
3. The filter of the Items tab: each key of a typed word and of its deletion (a word
   per session, a key every 100 ms); from the key to the end of the frame showing the
   filtered rows (those on screen: the table may go on looking for the filter in the
   rest between frames). Deleting reuses the matches the table kept while typing.
4. Page-down on the Items table, each key sent when the previous frame is out; frames
   per second. Reference: Textual's `DataTable` with the same {items} rows (the five
   cells the app shows, as `rich.text.Text`), same size, same keys.
5. `ResourceTable.sort_by("title")` (its cache of recent orders cleared first) against
   `DataTable.sort("title")` (rows first put back in an unrelated order); each to the
   end of the next frame.
6. Resident memory of the app process with every tab loaded and idle, minus the same
   with an empty service (the growth the items cause). "The decoded data alone": the
   RSS growth of a bare Python process (no Textual) from before it reads the body to
   after the app's own list decoder has turned it into the same typed msgspec structs
   (each keeps where its JSON text lies in a temporary file; the body is let go), the
   free memory of the C allocator handed back to the system after it, as the app does
   once a load has settled (`malloc_trim`). The
   growth is also given against the body's size, so a body kept in memory would show.
   For comparison, `json.loads` of the same body grows a process by {json_mb} MB.
7. During each load of figure 2: the longest delay of a 5 ms timer on the app's event
   loop, from the request to 0.3 s after the rows show (the old rows are freed then);
   median over loads.
8. `tokens.py`: 100 concurrent `list_webhooks()` through one `ApiClient`, tokens living
   8 s; token requests counted on the wire and by the client. *expired*: the client's
   clock says the token has expired. *rejected*: the client thinks it valid (clock
   stopped) and the server answers 401.
9. `commands.py`: `tokensales-tui get items -o jsonl` (an environment-only profile; it
   gets its own token) against `curl -s -H 'Authorization: Bearer …' …/v1/items | jq -c
   '.items[]'` given a token, both writing the same lines to a file; process start to
   exit, runs alternating.
10. `commands.py`: from just before the process starts to the first line on its stdout:
   `tokensales-tui get webhooks -o json` against a Python script that imports httpx (its
   own command line kept out, as the app does), asks for a token, lists the webhooks and
   prints the answer. One unmeasured warm-up each, then alternating.
11. `commands.py`: the peak resident memory (`wait4`'s `ru_maxrss`) of `get items -o jsonl`
   writing {big} items to a file; the list streams through, never held.
12. As 3, with filters of the language: `backstage` (only in descriptions, a field no
   column shows), `!pass` (an exclusion), `title:gems` (a column term).
13. `ctrl+a` on the Items table (every row marked) → the end of the frame showing the
    marks; `ctrl+a` again (every mark cleared) → its frame.
14. `w` on the Items tab with a 1 s interval; for each watched reload, from the request
    until the load has compared the new rows with those shown and set the changes
    apart: the longest delay of a 5 ms timer, and the frames drawn with the loading
    overlay or no rows (a reload must keep the rows shown).
15. The export dialog writing every item as JSON Lines (a thread, atomic, each object
    escaped for terminals), to the end of the frame after the dialog closes, with the
    longest stall meanwhile; against a plain loop of `json.dumps` and a write per
    object in the same process.
16. `webhook_flood.py`: a sender process paces signed Standard Webhooks deliveries at
    1,000 a second for 5 s over 20 kept-alive connections to `listen`'s receiver on
    127.0.0.1. With the listen screen (headless, frames rendered to ANSI): the longest
    delay of a 5 ms timer on the app's loop, and the longest gap between two frames while
    deliveries arrive; against the same receiver in a process with no screen. "Redrawn per
    delivery" is the screen with its coalescing turned off (a redraw on every arrival).
    The target is on what the screen adds: a single longest stall swings with other work
    on the machine, for the screenless receiver too (4 ms to 80 ms between runs).
17. `browser.py` (when Debian's Chromium is installed): one `serve --demo` and a
    headless Chromium (Selenium); from asking for the page to the animation frame that
    draws the first frame holding a webhook row (seen by a script the benchmark puts in
    the page, as its websocket's messages reach xterm.js): the page, its script, the
    websocket, a new app process and its first rows. Not the page's screen-reader text,
    which xterm.js refreshes at most once a second: rows reached it up to a second
    after they were drawn (the runs fell into two groups a second apart); it only
    confirms the rows. One unmeasured warm-up per browser. Reference: `startup_probe.py rows`, the same app headless from
    process start to the end of the first frame showing the Webhooks rows. Runs
    alternate; median of 5.
18–21. `app_session.py`, first thing in a session: `2` as soon as the main screen is up
    (the Items tab's first load); from the request to the first byte of the body, the
    first frame showing rows, the first showing all of them, and the first once the
    tab is usable (its search index built). Figure 21: the same for `r` (a reload:
    below 250,000 rows it keeps the old rows until the new ones are in). Reference:
    the body's arrival: the body read as it comes through httpx's asynchronous client
    from the same emulator, each piece counted and let go (median of 3, after one not
    timed); beside it, a plain `httpx` GET, which also joins the body into one `bytes`
    (for 614 MB, most of its time is the page faults of that new memory, which the app,
    spooling the body to a file, never pays). Figure 19
    also gives the processor time of the app's event-loop thread until every row
    shows (`time.thread_time`): near the wall time, the loop's own work bounds it.
22. Resident memory of the whole app process at the largest size: steady (every tab
    loaded, idle), and peak (`ru_maxrss` at the end of the session).
23. From the first rows of figure 18 on, a word typed in the filter, a key every
    100 ms (no deletion); each key to the frame showing the rows it filters. A filter
    typed while the rows are still indexed applies once the index is built.
24. The longest delay of a 5 ms timer during the first load of figure 18, the keys of
    figure 23 included; then from there until the app has settled the load's garbage
    (`settle_collections`: a full collection, then `gc.freeze`, once no tab loads),
    or the settle's own length when it came while the keys were typed. The target
    holds for both, and for the longest delay during each reload of figure 21 (from
    `r` until usable, and 0.3 s more while the old rows are let go). Also shown, when
    one came during a session: the walk of everything set aside (`walk_everything`),
    which waits until no key came for 2 s.
25. At the largest size, one more session pinned to one processor
    (`os.sched_setaffinity`, as a machine or container with one): the app then starts
    no index process, and the tab indexes the list itself (in a thread once the body
    has ended).
    The longest delay of a 5 ms timer during its first load (as in figure 24) and
    during each of two reloads (as in figure 21), and its peak resident memory.
"""


def write_markdown(
    options: Options,
    rows: list[dict[str, Any]],
    scaling: list[list[str]],
    main: dict[str, Any],
    started: float,
    loads: tuple[str, str],
    big: int,
) -> None:
    json_mb = main.get("json_data", {}).get("bytes", 0) / MB
    text = [
        "# Benchmark results",
        "",
        "Written by `python benchmarks/run.py"
        + (" --quick" if options.quick else "")
        + "`; do not edit by hand.",
        "",
        f"- date: {time.strftime('%Y-%m-%d %H:%M', time.localtime(started))}, "
        f"took {(time.time() - started) / 60:.1f} min",
        f"- machine: {machine()}",
        f"- load average at the start / end: {loads[0]} / {loads[1]} (other work on the "
        "machine slows both sides of each ratio)",
        f"- {main['items']:,} items: a {main['body_bytes'] / MB:.0f} MB `GET /v1/items` body "
        "(each item carries a contract ABI)",
        "",
        markdown_table(FIGURE_HEADER, figure_cells(rows)),
        "",
    ]
    if scaling:
        text += [
            "## Scaling",
            "",
            markdown_table(SCALING_HEADER, scaling),
            "",
            "Memory growth is over the app with no items; RSS is the whole app process "
            "(Python, Textual and all). *Body arrives* is the same body read as it comes "
            "by httpx's asynchronous client from the same emulator (nothing kept); a "
            "*plain GET* also joins it into one `bytes` in memory; *in the app*, the last "
            "byte comes later, as "
            "reading shares the interpreter with decoding. The first-load columns are the "
            "Items tab chosen (`2`) as soon as the app has started. *Usable*: its search "
            "index built (filter and sort answer from it). `json.loads` and "
            "`msgspec.json.decode` decode the same body in a fresh process; VisiData "
            "(`vd -b FILE -o OUT`, with `--with-visidata`) loads it and writes its rows. "
            "The machine is shared: compare ratios within a row, not runs.",
            "",
        ]
    text += [
        "## Definitions",
        "",
        DEFINITIONS.format(
            size=f"{SIZE[0]}×{SIZE[1]}",
            items=f"{main['items']:,}",
            json_mb=f"{json_mb:,.0f}",
            big=f"{big:,}",
        ),
    ]
    options.out.write_text("\n".join(text), encoding="utf-8")


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def parse_args(argv: Sequence[str] | None) -> Options:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small, fast run (smoke test)")
    parser.add_argument("--items", type=int, help="items for the figures (100000)")
    parser.add_argument(
        "--sizes",
        help="comma-separated sizes for the scaling table "
        "(1000,10000,100000,1000000; none with --quick; 'none' for none)",
    )
    parser.add_argument("--out", type=Path, default=HERE / "results.md")
    parser.add_argument(
        "--with-visidata",
        nargs="?",
        const="vd",
        metavar="VD",
        help="add VisiData (the `vd` command, or VD) to the scaling table; not a dependency",
    )
    args = parser.parse_args(argv)
    items = args.items or (2_000 if args.quick else 100_000)
    default_sizes = "none" if args.quick else "1000,10000,100000,1000000"
    sizes_text = args.sizes or default_sizes
    sizes = [] if sizes_text == "none" else [int(s.replace("_", "")) for s in sizes_text.split(",")]
    return Options(
        items=items,
        sizes=sizes,
        sessions=1 if args.quick else 3,
        loads=1 if args.quick else 2,
        startups=2 if args.quick else 15,
        pages=10 if args.quick else 60,
        refs=1 if args.quick else 3,
        out=args.out,
        quick=args.quick,
        visidata=shutil.which(args.with_visidata) if args.with_visidata else None,
    )


def main(argv: Sequence[str] | None = None) -> int:
    options = parse_args(argv)
    started = time.time()
    load_at_start = load_average()
    folder = Path(tempfile.mkdtemp(prefix="tokensales-bench-"))
    try:
        runner = Runner(folder)
        startup = measure_startup(runner, options)
        largest_size = max([options.items, *options.sizes])
        main_result = measure_size(
            runner,
            options.items,
            sessions=options.sessions,
            loads=options.loads,
            pages=options.pages,
            refs=options.refs,
            json_reps=options.refs,
            datatable=True,
            full=True,
            visidata=options.visidata,
            one_processor=options.items == largest_size,
        )
        print("memory of the app with no items", flush=True)
        baseline = measure_baseline(runner, options.refs)
        print("token requests", flush=True)
        tokens = runner.json(str(HERE / "tokens.py"), str(options.refs))
        big = 20_000 if options.quick else 1_000_000
        scripted_rows: list[dict[str, Any]] = []
        if shutil.which("curl") and shutil.which("jq"):
            scripted = commands.measure(
                folder,
                runner.env,
                items=options.items,
                big=big,
                reps=options.refs + 2,
                startups=options.startups,
            )
            scripted_rows = commands.rows(scripted)
        else:
            print("figures 9–11 skipped: their references need curl and jq on PATH", flush=True)
        print("webhook flood", flush=True)
        flood_seconds = 2.0 if options.quick else 5.0
        flood = webhook_flood.measure(rate=1000, seconds=flood_seconds)
        scripted_rows.append(webhook_flood.row(flood, 1000))
        served_rows: list[dict[str, Any]] = []
        missing = chromium_missing()
        if missing is None:
            served_rows = browser_rows(runner, 2 if options.quick else 5)
        else:
            print(f"figure 17 skipped: {missing}", flush=True)
        scaling_results = []
        for size in options.sizes:
            if size == options.items:
                scaling_results.append(main_result)
                continue
            big = size >= 1_000_000
            scaling_results.append(
                measure_size(
                    runner,
                    size,
                    sessions=1,
                    loads=1 if big else 2,
                    pages=0,
                    refs=1,
                    json_reps=1 if big else 3,
                    datatable=size <= 100_000,
                    full=False,
                    visidata=options.visidata,
                    one_processor=size == largest_size,
                )
            )
        largest = max([main_result, *scaling_results], key=lambda result: result["items"])
        rows = summarise(main_result, startup, baseline, tokens) + scripted_rows + served_rows
        rows += arrival_rows(main_result, largest)
        rows.sort(key=lambda row: row["n"])
        scaling = scaling_rows(scaling_results, baseline)
        print()
        print(plain_table(FIGURE_HEADER, figure_cells(rows)))
        if scaling:
            print()
            print(plain_table(SCALING_HEADER, scaling))
        write_markdown(
            options, rows, scaling, main_result, started, (load_at_start, load_average()), big
        )
        print(f"\nwritten to {options.out}")
        # A quick run is too small for the targets: it only shows the benchmark works.
        return 0 if options.quick or all(row["pass"] for row in rows) else 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
