"""The output thread of the app on a real terminal (``terminal_mode.BoundedWriter``), on a
pipe nobody reads for a while: the app on a pty is in ``test_app_signals.py``."""

from __future__ import annotations

import os
import threading

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
