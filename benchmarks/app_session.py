"""One headless session of the real app on a standalone emulator; prints JSON measures.

Run by ``run.py`` in a fresh process per session, so resident memory is the app's own.
The app is ``TokenSalesApp`` on an environment-only profile pointing at the emulator's
loopback address, with its real API worker, client and httpx transport; the only
addition is a pass-through transport that notes when ``GET /v1/items`` is sent.

Measures, in this order (so memory is read before the interactive steps allocate):

* ``cold``: ``2`` as soon as the app has started: the Items tab's first load, from the
  request to its first and last byte, the first rows shown, all of them shown and the
  tab usable (index built), with a word typed in the filter from the first rows on;
* ``memory``: resident memory after every tab has loaded and the app is idle;
* ``load``: ``r`` on the Items tab → list request sent → end of the first frame
  showing the new rows; with the longest event-loop stall and the frames drawn
  meanwhile;
* ``filter``: each key of a typed word and of its deletion → end of the frame
  showing the filtered rows;
* ``pagedown``: page-down frames per second, each key sent when the previous frame
  is out (as a held key would, at the app's pace);
* ``sort``: ``sort_by("title")`` → end of the frame showing the sorted rows;
* ``syntax``: each key of filters that use the language (a word only in a field no
  column shows, an exclusion, a column term) → end of the frame showing the rows;
* ``marks``: ``ctrl+a`` (mark every row) → end of the frame showing the marks, and
  ``ctrl+a`` again (clear them);
* ``watch``: ``w`` with a 1 s interval; for each watched reload, the longest event-loop
  stall from the request to the rows compared (and set apart), and the frames drawn
  meanwhile with no rows or the loading overlay;
* ``export``: the export dialog writing every row as JSON Lines, with the longest
  stall meanwhile; and, for reference, a plain loop of ``json.dumps`` of the same
  objects to a file in the same process.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))

import itertools

from harness import SIZE, FrameClock, StallMonitor, memory, send_key

WORDS = ("edition", "pass", "gems")
"""Words typed then deleted in the filter (all occur in the emulator's titles)."""

SYNTAX_WORDS = ["backstage", "!pass", "title:gems"]
"""Filters of the language: a word only in descriptions, an exclusion, a column term."""

SETTLE_WAIT = 10.0
"""Longest wait, after a first load, for the app to settle its garbage."""


class TimedTransport:
    """The default httpx transport, noting when each list request is sent and when the
    first and the last byte of its body arrive."""

    def __init__(self) -> None:
        import httpx

        self.inner = httpx.AsyncHTTPTransport()
        self.sent: list[float] = []
        # By the request's place in ``sent``: a request cancelled before its body came
        # has neither.
        self.first_byte: dict[int, float] = {}
        self.last_byte: dict[int, float] = {}
        self.status: dict[int, int] = {}

    async def handle_async_request(self, request: Any) -> Any:
        if not (request.method == "GET" and request.url.path == "/v1/items"):
            return await self.inner.handle_async_request(request)
        self.sent.append(time.perf_counter())
        place = len(self.sent) - 1
        response = await self.inner.handle_async_request(request)
        self.status[place] = response.status_code
        response.stream = TimedStream(response.stream, self, place)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()

    def times(self, place: int) -> tuple[float, float, float]:
        """When the request at ``place`` in :attr:`sent` was sent, and when the first and
        the last byte of the body that answered it came: that of the first request from
        there on answered whole with a 2xx. The app sends a GET again after a broken
        connection or an error answer; a full run once met a reload whose first request
        had no body, likely a kept-alive connection the server had closed meanwhile."""
        answered = next(
            (
                at
                for at in range(place, len(self.sent))
                if at in self.last_byte and 200 <= self.status[at] < 300
            ),
            None,
        )
        if answered is None:
            raise RuntimeError(f"no list request from number {place + 1} on was answered whole")
        return self.sent[place], self.first_byte[answered], self.last_byte[answered]


class TimedStream(httpx.AsyncByteStream):
    """A response body that notes when its first and last bytes arrive."""

    def __init__(self, inner: Any, clock: TimedTransport, place: int) -> None:
        self.inner, self.clock, self.place = inner, clock, place

    async def __aiter__(self) -> Any:
        async for chunk in self.inner:
            self.clock.first_byte.setdefault(self.place, time.perf_counter())
            yield chunk
        self.clock.last_byte[self.place] = time.perf_counter()

    async def aclose(self) -> None:
        await self.inner.aclose()


async def session(args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    import httpx

    from tokensales_tui.session import Launch
    from tokensales_tui.ui.app import TokenSalesApp

    transport = TimedTransport()

    class Transport(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            response: httpx.Response = await transport.handle_async_request(request)
            return response

        async def aclose(self) -> None:
            await transport.aclose()

    env = json.loads(args.env)
    app = TokenSalesApp(
        Launch(env=env, transport_factory=Transport, config_path=folder / "config.toml")
    )
    out: dict[str, Any] = {"items": args.items}
    import tokensales_tui.ui.tabs as tabs_module

    # Everything set aside walked again, once no key came for a while: a pause too.
    out["walks_s"] = timed_calls(tabs_module, "walk_everything")
    async with app.run_test(headless=True, size=SIZE) as pilot:
        frames = FrameClock(app).install()
        tabs = app.browse.tabs
        started = time.perf_counter()
        if "cold" in args.measure:
            out["cold"] = await measure_cold(app, frames, transport, args)
        while not all(tab.loaded_once or tab.error for tab in tabs):
            await asyncio.sleep(0.02)
            if time.perf_counter() - started > args.timeout:
                raise TimeoutError("the tabs did not load")
        errors = [str(tab.error) for tab in tabs if tab.error]
        if errors:
            raise RuntimeError("; ".join(errors))
        out["first_load_s"] = time.perf_counter() - started
        await asyncio.sleep(2.0)  # idle: the loads' garbage collected and set aside
        out["memory"] = memory()
        out["gc_tracked"] = len(gc.get_objects())
        started = time.perf_counter()
        gc.collect()
        out["full_gc_s"] = time.perf_counter() - started

        send_key(app, "2", "2")  # the Items tab
        items = app.browse.tab("items")
        table = items.table
        await frames.wait(lambda: app.active_tab is items)
        assert table.total_count == args.items, (table.total_count, args.items)

        if "load" in args.measure:
            out["load"] = await measure_loads(app, frames, transport, table, args.reps, args.items)
        # The last reload may still be indexing in a thread: measure the steady state.
        while any(w.group == "load" and w.is_running for w in items.workers):
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.3)
        if "filter" in args.measure:
            out["filter"] = await measure_filter(app, frames, table, args.words.split(","))
        if "pagedown" in args.measure:
            out["pagedown"] = await measure_pagedown(app, frames, table, args.pages)
        if "sort" in args.measure:
            out["sort"] = await measure_sort(frames, table, args.reps)
        if "syntax" in args.measure:
            out["syntax"] = await measure_filter(app, frames, table, SYNTAX_WORDS)
        if "marks" in args.measure:
            out["marks"] = await measure_marks(app, frames, table, args.reps)
        if "watch" in args.measure:
            out["watch"] = await measure_watch(app, frames, transport, items, args.reps)
        if "export" in args.measure:
            out["export"] = await measure_export(app, frames, table, folder)
        out["memory_end"] = memory()
        await app.action_quit()
        await pilot.pause()
    return out


async def measure_cold(
    app: Any, frames: FrameClock, transport: TimedTransport, args: argparse.Namespace
) -> dict[str, Any]:
    """The first load of the Items tab, chosen (``2``) as soon as the app has started.

    From the request: the first byte and the last byte of the body, the first frame
    showing rows, the first showing them all, and the first once the tab is usable (its
    search index built: filter and sort answer from it). Meanwhile, from the frame
    with the first rows, a word is typed in the filter, a key every 100 ms; each key
    is timed to the frame showing the rows it filters (no key is a deletion). Then the
    longest stall until the app has settled the garbage of the load. And the
    processor time of the event loop's thread until every row shows and until usable:
    near the wall time, the loop's own work bounds the load.
    """
    import tokensales_tui.ui.tabs as tabs_module

    await frames.wait(lambda: type(app.screen).__name__ == "BrowseScreen")
    items = app.browse.tab("items")
    table = items.table
    settles = timed_calls(tabs_module, "settle_collections")
    monitor = StallMonitor()
    monitor.start()
    cpu_before = time.thread_time()
    send_key(app, "2", "2")
    first_rows = await frames.wait(lambda: app.active_tab is items and table.total_count > 0)
    typing = asyncio.get_running_loop().create_task(type_word(app, frames, table, args.words))
    all_rows = await frames.wait(lambda: table.total_count == args.items)
    cpu_all_rows = time.thread_time() - cpu_before
    usable = await frames.wait(lambda: items.loaded_once and table.model.index_ready)
    cpu_usable = time.thread_time() - cpu_before
    keys = await typing
    stall = await monitor.stop()
    # Once no tab loads, the app collects the garbage a load left and sets the rest
    # aside (settle_collections, a second later): a user sees that pause too.
    monitor.start()
    waited = time.perf_counter()
    while not settles and time.perf_counter() - waited < SETTLE_WAIT:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.05)  # the stall monitor wakes from it
    # The settle may come before the typing ends: its own length counts as well.
    settle_stall = max(await monitor.stop(), *settles)
    sent, first, last = transport.times(0)
    send_key(app, "escape")
    await frames.wait(lambda: table.filter_text == "")
    return {
        "sent": 0.0,
        "first_byte_s": first - sent,
        "last_byte_s": last - sent,
        "first_rows_s": first_rows - sent,
        "all_rows_s": all_rows - sent,
        "usable_s": usable - sent,
        "stall_s": stall,
        "settle_stall_s": settle_stall if settles else None,
        "loop_cpu_all_rows_s": cpu_all_rows,
        "loop_cpu_usable_s": cpu_usable,
        "typed_s": keys,
        "frames_arriving": sum(1 for end in frames.ends if first <= end <= last),
    }


def timed_calls(module: Any, name: str) -> list[float]:
    """How long each call of ``module``'s function ``name`` takes from now on."""
    function = getattr(module, name)
    called: list[float] = []

    def timed() -> None:
        start = time.perf_counter()
        function()
        called.append(time.perf_counter() - start)

    setattr(module, name, timed)
    return called


def filtered(table: Any, text: str) -> bool:
    """Whether ``table`` shows the rows of filter ``text``: the filter is in effect, and
    the rows on screen are its matches (the rest of the rows may still be looked at)."""
    return bool(table.filter_text == text and table.screen_complete)


async def type_word(app: Any, frames: FrameClock, table: Any, words: str) -> list[float]:
    word = words.split(",")[0]
    send_key(app, "slash", "/")
    typed = []
    text = ""
    for character in word:
        await asyncio.sleep(0.1)
        text += character
        started = time.perf_counter()
        send_key(app, character, character)
        end = await frames.wait(lambda text=text: filtered(table, text))
        typed.append(end - started)
    return typed


async def measure_loads(
    app: Any, frames: FrameClock, transport: TimedTransport, table: Any, reps: int, count: int
) -> list[dict[str, float]]:
    results = []
    monitor = StallMonitor()
    for _ in range(reps):
        await asyncio.sleep(0.5)
        old = id(table.rows)  # not the list itself: the app must be free to release it
        sent_before = len(transport.sent)
        first = len(frames.ends)
        monitor.start()
        send_key(app, "r", "r")
        shown = await frames.wait(lambda old=old: id(table.rows) != old and not table.loading)
        everything = await frames.wait(lambda: table.total_count == count)
        tab = app.active_tab
        usable = await frames.wait(
            lambda tab=tab: not tab._loading and tab.loaded_once and table.model.index_ready
        )
        await asyncio.sleep(0.3)  # the old rows are released after the swap
        stall = await monitor.stop()
        sent, first_byte, last_byte = transport.times(sent_before)
        during = [end for end in frames.ends[first:] if sent <= end <= shown]
        gaps = [b - a for a, b in itertools.pairwise(during)]
        results.append(
            {
                "seconds": shown - sent,
                "all_rows_s": max(everything, shown) - sent,
                "usable_s": usable - sent,
                "first_byte_s": first_byte - sent,
                "last_byte_s": last_byte - sent,
                "stall_s": stall,
                "frames": len(during),
                "longest_frame_gap_s": max(gaps, default=shown - sent),
            }
        )
    return results


async def measure_filter(
    app: Any, frames: FrameClock, table: Any, words: list[str]
) -> dict[str, Any]:
    send_key(app, "slash", "/")
    await frames.wait(lambda: app.focused is not None and app.focused.id == "items-filter")
    typed: list[float] = []
    deleted: list[float] = []
    for word in words:
        text = ""
        for character in word:
            await asyncio.sleep(0.1)  # a quick typist: ten keys a second
            text += character
            started = time.perf_counter()
            send_key(app, character, character)
            end = await frames.wait(lambda text=text: filtered(table, text))
            typed.append(end - started)
        for _ in word:
            await asyncio.sleep(0.1)
            text = text[:-1]
            started = time.perf_counter()
            send_key(app, "backspace")
            end = await frames.wait(lambda text=text: filtered(table, text))
            deleted.append(end - started)
    send_key(app, "escape")  # clear the filter, back to the table
    await frames.wait(lambda: app.focused is table)
    return {"typed_s": typed, "deleted_s": deleted, "rows": table.total_count}


async def measure_pagedown(app: Any, frames: FrameClock, table: Any, pages: int) -> dict[str, Any]:
    if table.cursor_row:
        send_key(app, "home")
        await frames.wait(lambda: table.cursor_row == 0)
    await asyncio.sleep(0.3)
    latencies = []
    started = time.perf_counter()
    for _ in range(pages):
        before = table.cursor_row
        sent = time.perf_counter()
        send_key(app, "pagedown")
        end = await frames.wait(lambda before=before: table.cursor_row != before)
        latencies.append(end - sent)
    total = time.perf_counter() - started
    return {"fps": pages / total, "latency_s": latencies}


async def measure_sort(frames: FrameClock, table: Any, reps: int) -> list[float]:
    times = []
    for _ in range(reps):
        table.sort_by(None)
        table.model.forget_orders()  # the table keeps recent orders: measure a sort, not a lookup
        await asyncio.sleep(0.3)
        started = time.perf_counter()
        table.sort_by("title")
        end = await frames.wait(lambda: table.sort_column == "title")
        times.append(end - started)
    table.sort_by(None)
    return times


async def measure_marks(app: Any, frames: FrameClock, table: Any, reps: int) -> dict[str, Any]:
    marked: list[float] = []
    cleared: list[float] = []
    for _ in range(reps):
        await asyncio.sleep(0.3)
        started = time.perf_counter()
        send_key(app, "ctrl+a")
        marked.append(await frames.wait(lambda: table.marked_count == table.total_count) - started)
        await asyncio.sleep(0.3)
        started = time.perf_counter()
        send_key(app, "ctrl+a")
        cleared.append(await frames.wait(lambda: table.marked_count == 0) - started)
    return {"mark_all_s": marked, "clear_s": cleared}


async def measure_watch(
    app: Any, frames: FrameClock, transport: TimedTransport, tab: Any, reps: int
) -> list[dict[str, Any]]:
    app.watch_interval = 1.0
    table = tab.table
    monitor = StallMonitor()
    results = []
    blank: list[float] = []

    original = frames.app._display

    def display(screen: Any, renderable: Any) -> None:
        original(screen, renderable)
        if renderable is not None and (table.loading or not table.shown_count):
            blank.append(time.perf_counter())

    frames.app._display = display
    send_key(app, "w", "w")
    try:
        for _ in range(reps):
            sent_before = len(transport.sent)
            while len(transport.sent) == sent_before:
                await asyncio.sleep(0.005)
            monitor.start()
            sent = transport.sent[-1]
            first = len(frames.ends)
            blank_before = len(blank)
            # Reloaded, compared and set apart: the load's worker has ended.
            await asyncio.sleep(0.05)
            while any(w.group == "load" and w.is_running for w in tab.workers):
                await asyncio.sleep(0.005)
            done = time.perf_counter()
            await asyncio.sleep(0.3)  # the old rows are released after the swap
            stall = await monitor.stop()
            results.append(
                {
                    "seconds": done - sent,
                    "stall_s": stall,
                    "frames": len([end for end in frames.ends[first:] if end <= done]),
                    "blank_frames": len(blank) - blank_before,
                }
            )
    finally:
        send_key(app, "w", "w")
        frames.app._display = original
    return results


async def measure_export(app: Any, frames: FrameClock, table: Any, folder: Path) -> dict[str, Any]:
    from tokensales_tui.ui.screens.export import ExportScreen

    send_key(app, "x", "x")
    await frames.wait(lambda: isinstance(app.screen, ExportScreen))
    screen = app.screen
    await asyncio.sleep(0.3)
    target = folder / "export.jsonl"
    screen.query_one("#path").value = str(target)
    screen.kind = "jsonl"
    monitor = StallMonitor()
    monitor.start()
    started = time.perf_counter()
    screen.action_export()
    await frames.wait(lambda: not isinstance(app.screen, ExportScreen), timeout=600)
    seconds = time.perf_counter() - started
    stall = await monitor.stop()
    size = target.stat().st_size
    target.unlink()

    # The reference: the same objects, json.dumps and a write each, nothing else.
    rows = table.model.shown_rows
    plain = folder / "plain.jsonl"
    started = time.perf_counter()
    with plain.open("w", encoding="utf-8") as file:
        for row in rows:
            file.write(json.dumps(row.raw, ensure_ascii=False) + "\n")
    reference = time.perf_counter() - started
    plain.unlink()
    return {"seconds": seconds, "stall_s": stall, "bytes": size, "reference_s": reference}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--env", required=True, help="JSON of the TOKENSALES_* variables")
    parser.add_argument("--items", type=int, required=True)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--pages", type=int, default=60)
    parser.add_argument("--measure", default="load,filter,pagedown,sort,syntax,marks,watch,export")
    parser.add_argument("--words", default=WORDS[0], help="comma-separated words to type")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument(
        "--one-processor",
        action="store_true",
        help="run on one processor only, as on a machine with one (no index processes)",
    )
    args = parser.parse_args()
    if args.one_processor:
        os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    # As the app's entry point (cli.run_app) does: what importing it makes is set aside
    # for good, so that collections do not walk it.
    gc.disable()
    try:
        import httpx  # noqa: F401

        import tokensales_tui.ui.app
        import tokensales_tui.ui.tabs  # noqa: F401
    finally:
        gc.freeze()
        gc.enable()
    # The config's folder and the export's: gone when the session ends.
    with tempfile.TemporaryDirectory(prefix="tokensales-bench-") as folder:
        result = asyncio.run(session(args, Path(folder)))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
