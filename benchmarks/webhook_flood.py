"""Figure 16: a flood of webhook deliveries (1,000 a second) against the listen screen.

    python benchmarks/webhook_flood.py [--rate 1000] [--seconds 5]

Three receivers take the same flood, each in a fresh process, one after the other:

- *listen*: ``ListenApp`` headless at 120×40 (frames rendered to ANSI as a terminal
  would get them) over a :class:`Receiver` on 127.0.0.1, redraws coalesced;
- *reference*: the same :class:`Receiver` on 127.0.0.1 with no screen at all — what
  receiving, judging and keeping the deliveries costs by itself;
- *per delivery*: ``ListenApp`` redrawing the list on every arrival (no coalescing), to
  show what the coalescing saves.

A sender process paces signed Standard Webhooks deliveries at the rate over 20 kept-alive
connections. Each receiver reports the longest delay of a 5 ms timer on its event loop
(a stall) and, with a screen, the longest gap between frames while deliveries arrive.
The last line printed is JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import ROOT, SIZE, FrameClock, StallMonitor

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
CONNECTIONS = 20


async def send(url: str, rate: int, seconds: float) -> dict[str, Any]:
    """Send ``rate`` deliveries a second for ``seconds`` to ``url``; count the answers."""
    from tokensales_tui.webhooks.signatures import standard_headers

    host, port = url.removeprefix("http://").split(":")
    total = int(rate * seconds)
    queue: asyncio.Queue[int] = asyncio.Queue()
    answered = [0]
    failed = [0]

    async def connection() -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        while True:
            n = await queue.get()
            if n < 0:
                break
            body = json.dumps({"id": f"evt_{n}", "type": "item.sold", "data": {"n": n}}).encode()
            headers = standard_headers(SECRET, f"msg_{n}", int(time.time()), body)
            head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
            writer.write(
                f"POST /hook HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n{head}\r\n".encode()
                + body
            )
            status = await reader.readline()
            length = 0
            while (line := await reader.readline()) not in (b"\r\n", b""):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            if length:
                await reader.readexactly(length)
            if status.startswith(b"HTTP/1.1 2"):
                answered[0] += 1
            else:
                failed[0] += 1
        writer.close()

    workers = [asyncio.create_task(connection()) for _ in range(CONNECTIONS)]
    started = time.perf_counter()
    for n in range(total):
        due = started + n / rate
        delay = due - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        queue.put_nowait(n)
    for _ in workers:
        queue.put_nowait(-1)
    await asyncio.gather(*workers)
    took = time.perf_counter() - started
    return {"sent": total, "answered": answered[0], "failed": failed[0], "seconds": took}


def start_sender(url: str, rate: int, seconds: float) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, __file__, "--send", url, "--rate", str(rate), "--seconds", str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )


async def finish(sender: subprocess.Popen[str]) -> dict[str, Any]:
    while sender.poll() is None:
        await asyncio.sleep(0.05)
    out, _ = sender.communicate()
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return result


async def receive(kind: str, rate: int, seconds: float) -> dict[str, Any]:
    """One receiver under the flood: ``screen``, ``bare`` or ``per_delivery``."""
    from tokensales_tui.webhooks.listen import Listening, ListenOptions

    options = ListenOptions(secret=SECRET, keep=1000)
    async with Listening(options) as listening:
        monitor = StallMonitor()
        if kind == "bare":
            await asyncio.sleep(0.5)
            monitor.start()
            sender = start_sender(listening.url, rate, seconds)
            sent = await finish(sender)
            stall = await monitor.stop()
            return {"stall_s": stall, "received": listening.receiver.count, **sent}
        from tokensales_tui.ui.listen_app import ListenApp

        app = ListenApp(listening)
        async with app.run_test(headless=True, size=SIZE) as pilot:
            await pilot.pause(0.5)
            frames = FrameClock(app).install()
            if kind == "per_delivery":
                screen = app.deliveries

                def redraw_now(delivery: object = None) -> None:
                    screen._stale = True
                    screen._redraw()

                listening.receiver.on_change = redraw_now
            monitor.start()
            began = time.perf_counter()
            sender = start_sender(listening.url, rate, seconds)
            sent = await finish(sender)
            ended = time.perf_counter()
            stall = await monitor.stop()
            await pilot.pause(0.3)
            during = [t for t in frames.ends if began <= t <= ended]
            gaps = [b - a for a, b in itertools.pairwise(during)]
            shown = app.deliveries.delivery_list._rows
            return {
                "stall_s": stall,
                "frames": len(during),
                "frame_gap_s": max(gaps, default=ended - began),
                "received": listening.receiver.count,
                "last_shown": shown[-1].number if shown else 0,
                **sent,
            }


def run_receiver(kind: str, rate: int, seconds: float) -> dict[str, Any]:
    done = subprocess.run(
        [
            sys.executable,
            __file__,
            "--receiver",
            kind,
            "--rate",
            str(rate),
            "--seconds",
            str(seconds),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{kind} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def measure(rate: int = 1000, seconds: float = 5.0) -> dict[str, Any]:
    """The three receivers under the same flood, one after the other."""
    return {kind: run_receiver(kind, rate, seconds) for kind in ("screen", "bare", "per_delivery")}


def row(result: dict[str, Any], rate: int) -> dict[str, Any]:
    """Figure 16 for run.py's table."""
    screen, bare, each = result["screen"], result["bare"], result["per_delivery"]
    ratio = screen["stall_s"] / max(bare["stall_s"], 0.001)
    achieved = screen["answered"] / screen["seconds"]
    return {
        "n": 16,
        "figure": f"listen screen under {rate:,} signed deliveries/s ({achieved:,.0f}/s answered):"
        " longest stall; longest gap between frames",
        "ours": f"{screen['stall_s'] * 1000:.0f} ms; frame gap {screen['frame_gap_s'] * 1000:.0f} ms"
        f" ({screen['frames']} frames); redrawn per delivery: stall {each['stall_s'] * 1000:.0f} ms",
        "reference": f"{bare['stall_s'] * 1000:.0f} ms, the same receiver with no screen",
        "ratio": f"{ratio:.2f}×",
        "target": "stall ≤ reference + 100 ms, frame gap ≤ 250 ms",
        "pass": screen["stall_s"] - bare["stall_s"] <= 0.100 and screen["frame_gap_s"] <= 0.250,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rate", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--send", metavar="URL")
    parser.add_argument("--receiver", choices=("screen", "bare", "per_delivery"))
    args = parser.parse_args()
    if args.send:
        print(json.dumps(asyncio.run(send(args.send, args.rate, args.seconds))))
    elif args.receiver:
        print(json.dumps(asyncio.run(receive(args.receiver, args.rate, args.seconds))))
    else:
        result = measure(args.rate, args.seconds)
        print(json.dumps({"result": result, "row": row(result, args.rate)}))


if __name__ == "__main__":
    main()
