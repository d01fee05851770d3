"""The signals that end a program of this package, one set for all of them, and the one
way each program takes them (:func:`ending_on`)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Awaitable, Callable, Iterable, Iterator
from typing import Any, TypeVar

__all__ = [
    "APP_ENDING_SIGNALS",
    "ENDING_BUT_SIGINT",
    "Answered",
    "SignalEnded",
    "StoppedBy",
    "answered_then_finished",
    "ended_by",
    "ending_on",
    "exit_status",
    "left_to_default",
    "raising_on",
    "signal_name",
]

_T = TypeVar("_T")

_OTHER_NAMES = (
    *("SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM", "SIGVTALRM", "SIGPROF", "SIGIO"),
    *("SIGPWR", "SIGXCPU", "SIGSTKFLT"),
)

APP_ENDING_SIGNALS = (
    *(signal.SIGINT, signal.SIGTERM, signal.SIGHUP),
    *(getattr(signal, name) for name in _OTHER_NAMES if hasattr(signal, name)),
    *range(getattr(signal, "SIGRTMIN", 0), getattr(signal, "SIGRTMAX", -1) + 1),
)
"""Every signal another process may send whose default ends the process (``kill``, the
terminal closed, ctrl+c, …), taken by every program of the package through
:func:`ending_on`. An app quits on each as on ``q``, the terminal put back (raw mode, the
alternate screen, mouse reporting and the kitty keyboard mode stayed on), with status
128 + its number; a command, ``listen``, ``serve`` and the emulator end through their
cleanup (``serve``'s apps ended, the emulator's requests answered, each socket closed)
with that status. In an app SIGINT comes only from outside: ctrl+c typed in it is a key.
Left to their default: SIGKILL, which cannot be caught, and the faults of the process
itself (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS), after which no Python
code can be trusted to run; SIGPIPE and SIGXFSZ, which Python ignores."""


ENDING_BUT_SIGINT = tuple(signum for signum in APP_ENDING_SIGNALS if signum != signal.SIGINT)
""":data:`APP_ENDING_SIGNALS` less SIGINT, which Python raises as ``KeyboardInterrupt``
by itself and ``asyncio.run`` takes to cancel its main task: what a program takes with
:func:`raising_on` from its start, before (and after) the handlers of its own."""


def exit_status(signum: int) -> int:
    """The exit status of a program of this package that signal ``signum`` ended: 128 + its
    number, as a shell gives a process the signal killed (130 SIGINT, 143 SIGTERM)."""
    return 128 + signum


def signal_name(signum: int) -> str:
    """How a person names signal ``signum``: ``SIGTERM``, ``SIGHUP``; a real-time one,
    which has no name of its own, ``SIGRTMIN+3``."""
    rtmin = getattr(signal, "SIGRTMIN", None)
    if rtmin is not None and rtmin < signum <= getattr(signal, "SIGRTMAX", rtmin):
        return f"SIGRTMIN+{signum - rtmin}"
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


@contextlib.contextmanager
def ending_on(
    on_signal: Callable[[int], Any],
    *,
    loop: asyncio.AbstractEventLoop | None = None,
    signals: Iterable[int] = APP_ENDING_SIGNALS,
) -> Iterator[None]:
    """While the block runs, each of ``signals`` calls ``on_signal(signum)`` instead of
    its default, which ended the process on the spot, its cleanup not run: on ``loop``,
    as one of its callbacks, when one is given; else at once, wherever the main thread
    is (``on_signal`` may raise there).

    A signal ignored on entry stays ignored (``nohup``, ``trap ''``, a background job's
    SIGINT), and each handler is put back as it was after the block. A block may run
    inside another (an app inside a listen): the inner one has the signals while it
    runs, the outer one again after. Outside the main thread, where no handler can be
    set, nothing changes.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    taken: list[tuple[int, Any]] = []
    try:
        with _valid_signals_once():
            for signum in signals:
                try:
                    before = signal.getsignal(signum)
                    if before == signal.SIG_IGN:
                        continue
                    if loop is None:
                        signal.signal(signum, lambda number, _frame: on_signal(number))
                    else:
                        _on_loop(loop, signum).append(on_signal)
                except (NotImplementedError, RuntimeError, ValueError, OSError):
                    continue  # a number this system has no signal for, or a loop closed
                taken.append((signum, before))
        yield
    finally:
        with _valid_signals_once():
            for signum, before in reversed(taken):
                taken_on = _LOOP_CALLBACKS.get(signum)
                if loop is not None and taken_on is not None and taken_on[0] is loop:
                    callbacks = taken_on[1]
                    last = len(callbacks) - 1 - callbacks[::-1].index(on_signal)
                    del callbacks[last]
                    if callbacks:  # an outer block's, on this loop: its turn again
                        continue
                    del _LOOP_CALLBACKS[signum]
                    if not loop.is_closed():
                        loop.remove_signal_handler(signum)
                # None: a handler set outside Python, which cannot be put back; the default.
                signal.signal(signum, signal.SIG_DFL if before is None else before)


@contextlib.contextmanager
def _valid_signals_once() -> Iterator[None]:
    """While the block runs, ``signal.valid_signals()`` answers from one call.

    asyncio checks every signal number a loop takes or lets go against it, and each call
    builds the set anew, turning each of some 64 numbers into its enum member (an
    exception for every real-time signal): a fifth of a millisecond a call, 8 ms for the
    44 signals an app takes before its first frame, as many again as it quits. The set
    cannot change while a process runs; each caller gets a copy of its own.
    """
    valid = signal.valid_signals()
    original = signal.valid_signals
    signal.valid_signals = lambda: set(valid)  # type: ignore[assignment]
    try:
        yield
    finally:
        signal.valid_signals = original  # type: ignore[assignment]


_LOOP_CALLBACKS: dict[int, tuple[asyncio.AbstractEventLoop, list[Callable[[int], Any]]]] = {}
"""Per signal, the loop that takes it and the callbacks of the :func:`ending_on` blocks
running on it, the innermost last: a loop holds one handler per signal, which calls
that last one."""


def _on_loop(loop: asyncio.AbstractEventLoop, signum: int) -> list[Callable[[int], Any]]:
    """The callbacks of ``signum`` on ``loop``, its handler set there (through the loop's
    own wake-up: a signal that reaches another thread of the process still wakes it).
    Those of another loop (one closed before its blocks ended) are let go."""
    taken = _LOOP_CALLBACKS.get(signum)
    if taken is None or taken[0] is not loop:
        loop.add_signal_handler(signum, _call_innermost, signum)
        taken = _LOOP_CALLBACKS[signum] = (loop, [])
    return taken[1]


def _call_innermost(signum: int) -> None:
    if (taken := _LOOP_CALLBACKS.get(signum)) and taken[1]:
        taken[1][-1](signum)


class StoppedBy:
    """What :func:`ending_on` calls in a program that runs until a signal stops it
    (``listen``, ``serve``, the emulator): ``stop(signum)`` at each signal (a second
    ctrl+c may hurry what the first began), the first one's number kept for the exit
    status (:meth:`exit_code`), as the app and the commands end on it."""

    def __init__(self, stop: Callable[[int], Any]) -> None:
        self.signum: int | None = None
        """The first signal that came, if one did."""
        self._stop = stop

    def __call__(self, signum: int) -> None:
        if self.signum is None:
            self.signum = signum
        self._stop(signum)

    def exit_code(self, code: int = 0) -> int:
        """The exit status of the program, whose own is ``code``: once a signal stopped
        it, that signal's (:func:`exit_status`) in place of 0 (a failure keeps its own)."""
        return exit_status(self.signum) if code == 0 and self.signum is not None else code


class SignalEnded(KeyboardInterrupt):
    """A signal that ends a command (:func:`raising_on`): it unwinds through every cleanup
    as ctrl+c does (what was sent is said, the terminal's echo put back, temporary files
    and locks let go), and the command exits with :func:`exit_status` of ``signum``."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def ended_by(interrupt: KeyboardInterrupt) -> int:
    """The exit status of a command that ``interrupt`` ended: 128 + the number of the
    signal that raised it (:class:`SignalEnded`), or of SIGINT (ctrl+c: 130)."""
    return exit_status(interrupt.signum if isinstance(interrupt, SignalEnded) else signal.SIGINT)


_CORE_DUMPING = frozenset(
    getattr(signal, name) for name in ("SIGQUIT", "SIGXCPU") if hasattr(signal, name)
)
"""Ending signals whose default leaves a core dump: never left to it."""


@contextlib.contextmanager
def left_to_default(
    signals: Iterable[int] = APP_ENDING_SIGNALS,
) -> Iterator[Callable[[], contextlib.AbstractContextManager[None]]]:
    """While the block runs, each of ``signals`` takes its default action: it ends the
    process on the spot, with the status a shell reports as 128 + its number.

    For work no Python handler can stop: code of a C library that holds the interpreter
    (a jq program computing one result) runs no handler until it returns, so a signal
    was never acted on (ctrl+c, SIGTERM, SIGHUP: SIGKILL alone ended it). The handlers
    in place on entry (the command's) are back while a block of the function it yields
    runs (``with handled(): write(…)``), and after the block: what must not be cut short
    (a write of whole lines) ends through them, as any command does.

    A signal ignored on entry stays ignored; one without a Python handler, and those
    whose default leaves a core dump (SIGQUIT), keep theirs. Outside the main thread
    nothing changes.
    """
    taken: list[tuple[int, Any]] = []
    if threading.current_thread() is threading.main_thread():
        for signum in signals:
            try:
                before = signal.getsignal(signum)
            except (ValueError, OSError):
                continue
            if callable(before) and signum not in _CORE_DUMPING:
                taken.append((signum, before))

    def put(default: bool) -> None:
        # Every one of them, whatever a handler raises on the way (a signal that came
        # just before, raised as its handler is changed): none is left in between.
        raised: BaseException | None = None
        for signum, before in taken:
            try:
                signal.signal(signum, signal.SIG_DFL if default else before)
            except BaseException as error:  # re-raised once all are set
                raised = raised or error
                if not default:
                    signal.signal(signum, before)
        if raised is not None:
            raise raised

    @contextlib.contextmanager
    def handled() -> Iterator[None]:
        put(default=False)
        try:
            yield
        finally:
            put(default=True)

    try:
        # Within: a signal raised as the handlers are put aside leaves with them put back.
        put(default=True)
        yield handled
    finally:
        put(default=False)


def _raise_ended(signum: int) -> None:
    raise SignalEnded(signum)


def raising_on(
    signals: Iterable[int] = APP_ENDING_SIGNALS,
) -> contextlib.AbstractContextManager[None]:
    """:func:`ending_on` raising :class:`SignalEnded` where the command is."""
    return ending_on(_raise_ended, signals=signals)


class Answered:
    """The request of an :func:`answered_then_finished` block, and the signal that came."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._request: asyncio.Future[Any] | None = None
        self.signum: int | None = None
        """The first signal that came once the request was sent."""

    async def answer(self, request: Awaitable[_T]) -> _T:
        """Send ``request`` and wait for its answer; a signal meanwhile cancels it and
        raises :class:`SignalEnded` here (the outcome unknown: the caller says so)."""
        task: asyncio.Future[_T] = asyncio.ensure_future(request)
        self._request = task
        try:
            return await task
        except asyncio.CancelledError:
            if self.signum is not None and task.cancelled():
                raise SignalEnded(self.signum) from None
            raise

    def _on_signal(self, signum: int) -> None:
        if self._request is None:
            raise SignalEnded(signum)  # nothing sent: end where the command is
        if self.signum is None:
            self.signum = signum
        # Woken through the loop: the signal may have come while it waits on its selector.
        # Nothing once the answer is in: the block goes on to its end.
        self._loop.call_soon_threadsafe(self._request.cancel)


@contextlib.contextmanager
def answered_then_finished(signals: Iterable[int] = APP_ENDING_SIGNALS) -> Iterator[Answered]:
    """A command's block that sends one request (:meth:`Answered.answer`) and must act on
    its answer (write down what the service did): a signal that comes before the request
    is sent ends the command at once, as :func:`raising_on` does; one that comes while it
    waits cancels it; one that comes once the answer is in waits for the block to end, and
    then raises :class:`SignalEnded` — so the work after the answer is never cut off,
    and the command still ends with the signal's status. Run it on the event loop's
    thread (the main one)."""
    answered = Answered(asyncio.get_running_loop())
    with ending_on(answered._on_signal, signals=signals):
        yield answered
    if answered.signum is not None:
        raise SignalEnded(answered.signum)
