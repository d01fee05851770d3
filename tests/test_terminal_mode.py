"""The output thread of the app on a real terminal (``terminal_mode.BoundedWriter``), on a
pipe nobody reads for a while: the app on a pty is in ``test_app_signals.py``."""

from __future__ import annotations

import os
import select
import threading
import time

from tokensales_tui.ui.terminal_mode import FRAMES_HELD, BoundedWriter


def test_a_stalled_terminal_holds_few_frames_each_whole_and_every_other_write() -> None:
    # Every write waited for room in a queue of 30, and after 15 s the terminal counted
    # as gone. Now frames past the few held are dropped whole, what is not a frame is
    # kept, and once the terminal has taken what was held, the app is told to draw all.
    read, written = os.pipe()
    caught_up = threading.Event()
    with os.fdopen(written, "w") as file:
        writer = BoundedWriter(file, failed=None, caught_up=caught_up.set, after=None)
        writer.start()
        frame = "x" * 100_000  # more than a pipe holds: the first one waits on it
        for n in range(50):
            writer.begin_frame()
            writer.write(f"<frame {n}>")
            writer.write(frame)
            writer.end_frame()
            writer.write(f"<mode {n}>")
        assert not caught_up.is_set()
        taken = b""
        while not (taken.endswith(b"<mode 49>") and caught_up.is_set()):
            taken += os.read(read, 1 << 20)
        writer.stop()
    os.close(read)
    assert not writer.is_alive() and not writer.broken
    held = "".join(f"<frame {n}>{frame}<mode {n}>" for n in range(FRAMES_HELD))
    assert taken.decode() == held + "".join(f"<mode {n}>" for n in range(FRAMES_HELD, 50))


def test_after_a_frame_dropped_none_is_written_until_the_app_draws_all() -> None:
    # A frame was dropped only while two were held: one taken, the next was written, a
    # change from a frame the terminal never had, and the app drew all only once it
    # stopped drawing. While it kept drawing (a key held over a slow link, deliveries),
    # the screen stayed wrong.
    read, written = os.pipe()
    caught_up = threading.Event()
    frame = "x" * 100_000  # more than a pipe holds

    def draw(writer: BoundedWriter, n: int) -> None:
        writer.begin_frame()
        writer.write(f"<frame {n}>{frame}")
        writer.end_frame()

    with os.fdopen(written, "w") as file:
        writer = BoundedWriter(file, failed=None, caught_up=caught_up.set, after=None)
        writer.start()
        for n in range(FRAMES_HELD + 1):  # the last one dropped
            draw(writer, n)
        taken = b""
        while len(taken) < len(f"<frame 0>{frame}"):  # the first held frame taken
            taken += os.read(read, len(f"<frame 0>{frame}") - len(taken))
        deadline = time.monotonic() + 30
        while writer._frames_held == FRAMES_HELD:
            assert time.monotonic() < deadline
            time.sleep(0.01)
        draw(writer, FRAMES_HELD + 1)  # room for one again: still dropped
        while not caught_up.is_set():  # told once it has all: nothing more may come
            assert time.monotonic() < deadline
            if select.select([read], [], [], 0.05)[0]:
                taken += os.read(read, 1 << 20)
        writer.stop()
    while chunk := os.read(read, 1 << 20):  # the rest of the last, to the pipe's end
        taken += chunk
    os.close(read)
    assert taken.decode() == "".join(f"<frame {n}>{frame}" for n in range(FRAMES_HELD))
