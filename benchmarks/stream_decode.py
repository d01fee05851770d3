"""How a big list body is decoded as it arrives, without the app or the network.

    python benchmarks/stream_decode.py /tmp/items1m.json

Feeds the file in 64 KB pieces to :class:`StreamedList` through a fake response and
reports wall time, CPU time (all threads), how late the event loop's 5 ms ticks came
at worst, and the process's RSS before and once the rows are held, and at its peak.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import resource
import time
from collections.abc import AsyncIterator
from typing import Any

from tokensales_tui.api.listing import StreamedList
from tokensales_tui.api.models import Item

PIECE = 64 * 1024


class FakeResponse:
    status_code = 200
    headers = {"content-type": "application/json"}


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / 1e6


async def main(path: str) -> dict[str, Any]:
    before = rss_mb()
    gaps: list[float] = []

    async def ticker() -> None:
        last = time.perf_counter()
        while True:
            await asyncio.sleep(0.005)
            now = time.perf_counter()
            gaps.append(now - last - 0.005)
            last = now

    async def pieces() -> AsyncIterator[bytes]:
        with open(path, "rb", buffering=0) as source:
            while piece := source.read(PIECE):
                yield piece
                await asyncio.sleep(0)

    tick = asyncio.create_task(ticker())
    cpu, wall = time.process_time(), time.perf_counter()
    listing = StreamedList(Item, "items", FakeResponse(), None)  # type: ignore[arg-type]
    await listing.consume(pieces())
    rows = await listing.result()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    tick.cancel()
    gc.collect()
    first = rows[0].raw, rows[-1].raw
    return {
        "rows": len(rows),
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "loop_late_max_ms": round(max(gaps) * 1000, 1),
        "rss_before_mb": round(before),
        "rss_rows_mb": round(rss_mb()),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e6),
        "raw_ok": bool(first[0] and first[1]),
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    print(asyncio.run(main(parser.parse_args().path)))
