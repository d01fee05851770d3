"""The references the app is measured against, each run in a fresh process by ``run.py``.

``json_loads BODY REPS``
    Seconds for ``json.loads`` of the list body with the garbage collector on (as
    Python ships it) and off (as the app decodes), and for ``msgspec.json.decode``
    into plain objects. Each repetition drops the previous result first.
``visidata BODY VD REPS``
    Seconds for VisiData (``VD``, not a dependency of the project) to load the same
    body and write its rows, in batch mode.
``data BODY``
    Resident memory that the decoded data alone takes: the growth of this process's
    RSS from before the body is read to after it is decoded by the app's own list
    decoder (``ApiClient``'s parser: msgspec structs, each keeping its JSON text as a
    slice of the body, which stays in memory). No Textual, no table.
``json_data BODY``
    For comparison only: the same growth for ``json.loads`` (dicts and lists).
``datatable BODY REPS PAGES``
    Textual's own ``DataTable`` holding the same rows: the five cells the app's Items
    table shows, as ``rich.text.Text`` (a ``str`` cell is parsed as markup, and
    server text must not be). Load time, page-down frames per second and
    ``DataTable.sort`` by the title, each timed to the end of the next frame.

Each prints one line of JSON.
"""

from __future__ import annotations

import asyncio
import gc
import json
import mmap
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import SIZE, FrameClock, memory, send_key


def read_body(path: str) -> mmap.mmap:
    """The body as the app holds it after reading it from the socket (a memory map)."""
    size = os.path.getsize(path)
    body = mmap.mmap(-1, size)
    with open(path, "rb") as file:
        while chunk := file.read(65536):
            body.write(chunk)
    return body


def json_loads(path: str, reps: int) -> dict[str, Any]:
    """``json.loads`` with the collector on (as Python ships) and off (fair: the app
    pauses it too), and ``msgspec.json.decode`` into plain objects, alternating."""
    import msgspec

    body = Path(path).read_bytes()
    times: dict[str, list[float]] = {"gc_on": [], "gc_off": [], "msgspec": []}
    kept: list[Any] = [None]
    for _ in range(reps):
        for kind, times_of_kind in times.items():
            kept[0] = None  # the previous result is freed before the next decode
            gc.collect()
            if kind != "gc_on":
                gc.disable()
            started = time.perf_counter()
            kept[0] = msgspec.json.decode(body) if kind == "msgspec" else json.loads(body)
            times_of_kind.append(time.perf_counter() - started)
            gc.enable()
    return {"seconds": times["gc_off"], **times}


def visidata(path: str, vd: str, reps: int) -> dict[str, Any]:
    """VisiData loading the same body in batch mode (``vd -b FILE -o OUT``: read the
    JSON, build its rows, write them out as TSV), from process start to exit."""
    import subprocess
    import tempfile

    times = []
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "rows.tsv"
        for _ in range(reps):
            started = time.perf_counter()
            subprocess.run(
                [vd, "-b", path, "-o", str(out)],
                check=True,
                capture_output=True,
                timeout=3600,
                env={**os.environ, "HOME": folder},
            )
            times.append(time.perf_counter() - started)
    return {"seconds": times}


def data(path: str) -> dict[str, Any]:
    from tokensales_tui.api.decode import ListParser
    from tokensales_tui.api.models import Item, give_back_free_memory

    parse = ListParser(Item, "items", 200, "application/json")
    gc.collect()
    give_back_free_memory()
    before = memory()["rss"]
    items = parse(read_body(path))
    give_back_free_memory()  # as the app does once a load has settled
    after = memory()
    return {"bytes": after["rss"] - before, "peak": after["peak"], "items": len(items)}


def json_data(path: str) -> dict[str, Any]:
    from tokensales_tui.api.models import give_back_free_memory

    gc.collect()
    give_back_free_memory()
    before = memory()["rss"]
    decoded = json.loads(Path(path).read_bytes())
    give_back_free_memory()
    after = memory()
    return {"bytes": after["rss"] - before, "peak": after["peak"], "items": len(decoded["items"])}


def plain(text: Any) -> str:
    """The text of a ``rich.text.Text`` cell."""
    return str(text.plain)


def table_cells(path: str) -> list[tuple[str, ...]]:
    """The Items table's five cells per row, exactly as the app displays them."""
    from tokensales_tui.api.decode import ListParser
    from tokensales_tui.api.models import Item
    from tokensales_tui.clean import display_value
    from tokensales_tui.ui.resources import ITEMS

    items = ListParser(Item, "items", 200, "application/json")(read_body(path))
    columns = ITEMS.columns(items)
    return [tuple(display_value(column.get(item), 200) for column in columns) for item in items]


async def datatable(path: str, reps: int, pages: int) -> dict[str, Any]:
    from rich.text import Text
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable

    cells = table_cells(path)

    class TableApp(App[None]):
        def compose(self) -> ComposeResult:
            yield DataTable(cursor_type="row")

    app = TableApp()
    out: dict[str, Any] = {"rows": len(cells)}
    async with app.run_test(headless=True, size=SIZE):
        frames = FrameClock(app).install()
        table = app.query_one(DataTable)
        for key, label in zip(
            ("id", "title", "price", "payout", "chain"),
            ("ID", "Title", "Price", "Payout", "Chain"),
            strict=True,
        ):
            table.add_column(label, key=key)
        rows = [tuple(map(Text, row)) for row in cells]
        del cells
        started = time.perf_counter()
        table.add_rows(rows)
        end = await frames.wait(lambda: table.row_count == len(rows))
        out["load_s"] = end - started
        table.focus()
        await asyncio.sleep(0.5)

        fps = []
        for _ in range(reps):
            if table.cursor_row:
                table.move_cursor(row=0, animate=False)
                await frames.wait(lambda: table.cursor_row == 0)
            await asyncio.sleep(0.3)
            started = time.perf_counter()
            for _ in range(pages):
                before = table.cursor_row
                send_key(app, "pagedown")
                await frames.wait(lambda before=before: table.cursor_row != before)
            fps.append(pages / (time.perf_counter() - started))
        out["fps"] = fps

        sorts = []
        for _ in range(reps):
            # Text cells do not compare: sort by their plain text (not even case-folded,
            # which the app's sort does). First an order unrelated to the titles.
            table.sort("id", key=plain)
            await frames.wait(lambda: True)
            await asyncio.sleep(0.3)
            started = time.perf_counter()
            table.sort("title", key=plain)
            sorts.append(await frames.wait(lambda: True) - started)
        out["sort_s"] = sorts
        out["memory"] = memory()
    return out


def main() -> None:
    what, path, *rest = sys.argv[1:]
    if what == "json_loads":
        result = json_loads(path, int(rest[0]))
    elif what == "visidata":
        result = visidata(path, rest[0], int(rest[1]))
    elif what == "data":
        result = data(path)
    elif what == "json_data":
        result = json_data(path)
    elif what == "datatable":
        result = asyncio.run(datatable(path, int(rest[0]), int(rest[1])))
    else:
        raise SystemExit(f"unknown reference {what}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
