"""What an app served to a browser may make the serving machine do, enforced by the
interpreter.

A browser tab of ``serve`` uses its profile's service and nothing more of the serving
machine (README, "serve"): the screens check ``Launch.served`` where they would write a
file, open the browser or start something. A check forgotten in a new feature would
go unseen, so a served app also puts itself behind a fence once it has read its config
(:func:`fence_in`): an audit hook (PEP 578). The interpreter calls it before it opens a
file, lists a folder, changes one, starts a process, or resolves or connects to an
address, in every thread and every library; what the fence does not let through is
refused with :class:`PermissionError`, the error a file without permission gives, which
every caller already reports. A hook cannot be taken away: the fence lasts as long as
the process.

Let through:

- reading the interpreter's, the installed packages' and the system's files (``/usr``,
  ``/etc``, …, and what the app reads of ``/proc`` and ``/sys`` to know the processors
  it may use), wherever they are installed (a virtual environment or a Python in the
  home folder too), never the user's (the rest of the home, the working folder, ``/tmp``,
  the app's config, data and cache, other processes), by an absolute path only (a path
  taken in an open folder, or in a working folder changed meanwhile, is not what the
  interpreter tells a hook);
- a folder the process made for itself with :func:`tempfile.mkdtemp` (a served export,
  written there, handed to the browser and removed), anything in it, and a new file
  created in the temporary folder (a spooled list body);
- the profile's addresses (service, token endpoint, console, proxy) and nothing else: a
  name, and then the addresses its look-up gave (:func:`fence_in` has the look-ups say);
- this package's index process as the app starts it (this interpreter, the same
  variables that choose what Python runs), and no other program: :mod:`multiprocessing`'s
  way to start one, which says nothing to a hook, is taken away (:func:`fence_in`).

Refused too, for what it would read in C, out of the hook's sight: a database file of
:mod:`sqlite3`. (Libraries loaded with :mod:`ctypes` are let through: installed packages
load their own that way, pycryptodome among them, and a library the tab could have
written is refused where it would be written.)

A browser is never opened from the fence: Python's :mod:`webbrowser` is refused too.
Signals go only to this process and those it started (never serve, nor another process
of the user's).

What the fence is not: a barrier against code already running in the tab. It sees what
the interpreter tells a hook, so it guards against a feature that forgets its served
check, from any library; code written to get past it can (a C library called through
:mod:`ctypes`, the fence's own objects changed), and what raises no event (``os.stat``,
a socket listening without ``bind``) goes unseen. The tab runs no code it is sent: its
keys and screen are all a browser gives it.
"""

from __future__ import annotations

import contextlib
import errno
import os
import site
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

from .digits import ascii_int

__all__ = ["Fence", "fence_in", "is_fenced"]

SYSTEM_READABLE = (
    "/usr",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/dev/null",
    "/dev/urandom",
    "/proc/stat",
    "/proc/self/cgroup",
    "/proc/sys/fs/pipe-max-size",
    "/sys/fs/cgroup",
)
"""What is read of the system: libraries, settings, and the processors' figures (room.py,
index_process.py)."""

WRITING = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
O_TMPFILE = getattr(os, "O_TMPFILE", 0)

DEFAULT_PORTS = {"http": 80, "https": 443}

_fenced: list[Fence] = []


def is_fenced() -> bool:
    """Whether this process is behind a fence."""
    return bool(_fenced)


def fence_in(fence: Fence) -> None:
    """Put this process behind ``fence``, for good. Once only: a second call is ignored
    (the first fence already holds, and a hook cannot widen it).

    Name look-ups through :func:`socket.getaddrinfo` (asyncio's, and so httpx's) tell
    the fence the addresses a name it lets through stands for: a connection goes to one
    of those. One made by another way is not told, and its connection is refused.
    """
    if _fenced:
        return
    _fenced.append(fence)
    sys.addaudithook(fence.hook)
    socket.getaddrinfo = _telling(fence, socket.getaddrinfo)  # type: ignore[assignment]
    # What raises no event of its own: starting a process by ``fork_exec`` (as
    # multiprocessing does; subprocess too, after its ``subprocess.Popen``, which the
    # fence judged), and making a FIFO or a device.
    with contextlib.suppress(ImportError):
        import _posixsubprocess

        started = _starting_once_judged(fence, _posixsubprocess.fork_exec)
        _posixsubprocess.fork_exec = started
        subprocess._fork_exec = started  # type: ignore[attr-defined]
    os.mkfifo = os.mknod = _no_special_files  # type: ignore[assignment]


def _telling(fence: Fence, getaddrinfo: Callable[..., Any]) -> Callable[..., Any]:
    def looked_up(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        found = getaddrinfo(host, port, *args, **kwargs)  # the fence judges the name
        fence.learned(host, found)
        return found

    return looked_up


@dataclass
class Fence:
    """What one process may do of the machine: see the module's docstring.

    Args:
        addresses: The URLs whose hosts and ports it may resolve and connect to.
        programs: The command lines it may start, whole.
        private: Places it may never read, even inside what is readable (the app's
            config, data and cache folders, the user's home).
    """

    addresses: Iterable[str] = ()
    programs: Iterable[Sequence[str]] = ()
    private: Iterable[str | Path] = ()
    _hosts: set[tuple[str, int]] = field(init=False, default_factory=set)
    _addresses: dict[str, set[str]] = field(init=False, default_factory=dict)
    _programs: list[list[str]] = field(init=False, default_factory=list)
    _choosing: dict[str, str] = field(init=False, default_factory=dict)
    _making: set[str] = field(init=False, default_factory=set)
    _readable: tuple[str, ...] = field(init=False, default=())
    _private: tuple[str, ...] = field(init=False, default=())
    _temporary: str = field(init=False, default="")
    _own: set[str] = field(init=False, default_factory=set)
    _inside: threading.local = field(init=False, default_factory=threading.local)
    _lock: threading.Lock = field(init=False, default_factory=threading.Lock)
    """Guards ``_own`` and ``_making``: the hook runs in every thread (an export's, a
    spool's)."""

    def __post_init__(self) -> None:
        for address in self.addresses:
            parts = urlsplit(address)
            if not parts.hostname:
                continue
            port = parts.port or DEFAULT_PORTS.get(parts.scheme.lower())
            if port is None:
                continue
            host = parts.hostname.lower()
            self._hosts.add((host, port))
            if _is_ip(host):
                self._addresses.setdefault(host, set()).add(host)
        self._programs = [list(program) for program in self.programs]
        self._choosing = _choosing(os.environ)
        self._private = tuple(_real(place) for place in self.private)
        home, working = _real(Path.home()), _working()
        paths = (entry for entry in sys.path if entry and Path(entry).is_absolute())
        roots = {
            sys.prefix,
            sys.base_prefix,
            sys.exec_prefix,
            sys.base_exec_prefix,
            *site.getsitepackages(),
            site.getusersitepackages(),
            str(Path(__file__).parent),
            # ``python -m`` puts the working folder first on the path: not code.
            *(entry for entry in map(_real, paths) if entry != working),
            *SYSTEM_READABLE,
        }
        # A root holding the home or a private place (``/``, a home on the path) would
        # open it: such roots are left out. One inside the home (a virtual environment,
        # a Python of pyenv, a checkout) is code, and stays.
        self._readable = tuple(
            sorted(
                real
                for real in map(_real, roots)
                if not any(_within(place, real) for place in (*self._private, home))
            )
        )
        self._temporary = _real(tempfile.gettempdir())

    def learned(self, host: Any, found: Iterable[Any]) -> None:
        """A look-up of ``host`` (let through) found ``found`` (``getaddrinfo``'s answer):
        connections to those addresses are to ``host``."""
        addresses = self._addresses.setdefault(_host(host), set())
        for entry in found:
            with contextlib.suppress(IndexError, TypeError):
                addresses.add(_host(entry[4][0]))

    # --- the hook -----------------------------------------------------------------

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        """The audit hook: refuse ``event`` with :class:`PermissionError` unless let through."""
        check = CHECKS.get(event)
        if check is None or getattr(self._inside, "active", False):
            return  # not watched, or an event of the fence's own look-ups
        self._inside.active = True
        try:
            refused = check(self, args)
        finally:
            self._inside.active = False
        if refused is not None:
            raise PermissionError(
                errno.EACCES, f"not from a browser tab of serve ({event})", refused
            )

    def refusal(self, event: str, args: tuple[Any, ...]) -> str | None:
        """What :meth:`hook` would refuse of ``event``: a place or an address, or None."""
        check = CHECKS.get(event)
        return None if check is None else check(self, args)

    # --- files --------------------------------------------------------------------

    def _open(self, args: tuple[Any, ...]) -> str | None:
        path, mode, flags = (*args, None, None, None)[:3]
        if isinstance(path, int):
            return None  # a file already open: the process's own
        real = _path(path, absolute=True)
        if real is None:
            return str(path)
        flags = flags if isinstance(flags, int) else 0
        writes = bool(flags & WRITING) or any(c in (mode or "") for c in "wax+")
        if not writes:
            return None if self._may_read(real) else real
        if self._is_own(real) or real == os.devnull:
            return None
        if real == self._temporary and (
            (O_TMPFILE and flags & O_TMPFILE == O_TMPFILE) or isinstance(mode, str)
        ):
            # A file without a name (O_TMPFILE), gone when closed: a spooled body; or
            # the folder handed by ``open`` to an opener that makes the file
            # (NamedTemporaryFile), whose own opening comes here named. Never the
            # folder itself, open to be listed or to make files in.
            return None
        new = os.O_CREAT | os.O_EXCL
        if flags & new == new and os.path.dirname(real) == self._temporary:
            # A new file of the temporary folder, never another's: a name taken already
            # is left to fail (EEXIST) without becoming the process's own.
            if not os.path.lexists(real):
                with self._lock:
                    self._own.add(real)
            return None
        return real

    def _listing(self, args: tuple[Any, ...]) -> str | None:
        path = args[0] if args else None
        if isinstance(path, int):
            return None  # a folder opened through the fence
        real = _path(path, absolute=True)
        if real is None:
            return str(path)
        return None if self._may_read(real) else real

    def _made_folder(self, args: tuple[Any, ...]) -> None:
        """``tempfile.mkdtemp`` says which folder it is about to make (``os.mkdir``)."""
        real = _path(args[0], absolute=True)
        if real is not None and os.path.dirname(real) == self._temporary:
            with self._lock:
                self._making.add(real)

    def _making_folder(self, args: tuple[Any, ...]) -> str | None:
        path, mode, folder = (*args, None, None, None)[:3]
        real = _path(
            path, folder if isinstance(folder, int) and folder >= 0 else None, absolute=True
        )
        if real is None:
            return str(path)
        if self._is_own(real):
            return None
        # The folder tempfile.mkdtemp said it would make (any code may say so): new, and
        # private. Made by this process, it is the process's own.
        with self._lock:
            if real in self._making and mode == 0o700 and not os.path.lexists(real):
                self._making.discard(real)
                self._own.add(real)
                return None
        return real

    def _may_read(self, real: str) -> bool:
        if any(_within(real, place) for place in self._private):
            return False
        return self._is_own(real) or any(_within(real, root) for root in self._readable)

    def _is_own(self, real: str) -> bool:
        with self._lock:
            return any(_within(real, own) for own in self._own)

    def _forget(self, real: str) -> None:
        """``real`` is being removed: nothing in it is the process's own any more (a
        removal that fails leaves it refused, never the other way round)."""
        with self._lock:
            self._own = {own for own in self._own if not _within(own, real)}

    # --- processes and addresses --------------------------------------------------

    def _starting(self, args: tuple[Any, ...]) -> str | None:
        executable, command, cwd, env = (*args, None, None, None, None)[:4]
        if isinstance(command, str | bytes | os.PathLike):
            command = [command]
        try:
            line = [os.fsdecode(part) for part in command or ()]
            runs = line[0] if executable is None else os.fsdecode(executable)
        except (TypeError, IndexError):
            return "a program"
        # The command line, run by what it names, where the app is, with the variables
        # that choose what Python runs as they were: nothing else of one's own.
        if (
            line in self._programs
            and runs == line[0]
            and cwd is None
            and _choosing(os.environ if env is None else env) == self._choosing
        ):
            self._inside.starting = line  # for fork_exec, which follows in this thread
            return None
        return " ".join(line) or "a program"

    def _signalling(self, args: tuple[Any, ...]) -> str | None:
        """``os.kill``/``os.killpg``: this process, or one it started (an index process,
        in a session of its own); never serve, nor another process of the user."""
        target = args[0] if args else None
        if not isinstance(target, int) or target <= 0:
            return str(target)
        if target == os.getpid() or _parent_of(target) == os.getpid():
            return None
        return str(target)

    def _resolving(self, args: tuple[Any, ...]) -> str | None:
        host, port = (*args, None, None)[:2]
        name = _host(host)
        if isinstance(port, str):
            port = ascii_int(port, 5)
        known = {known for known, at in self._hosts if port is None or at == port}
        return None if name in known else f"{name}:{port}"

    def _connecting(self, args: tuple[Any, ...]) -> str | None:
        sock, address = (*args, None, None)[:2]
        family = getattr(sock, "family", None)
        if family not in (socket.AF_INET, socket.AF_INET6) or not isinstance(address, tuple):
            return str(address)
        ip, port = _host(address[0]), address[1]
        # One of the profile's addresses, on its port: written as a number, or found
        # by a look-up of its name (``learned``).
        for host, at in self._hosts:
            if at == port and ip in self._addresses.get(host, ()):
                return None
        return f"{ip}:{port}"


Checker = Callable[[Fence, tuple[Any, ...]], "str | None"]


def _changes(
    places: Callable[[tuple[Any, ...]], Iterable[tuple[Any, Any]]], *, removes: bool = False
) -> Checker:
    """The check of an event that changes the files at ``places(args)`` (each a path and
    the open folder it is taken in, or None): each must be the process's own. One that
    ``removes`` them also forgets them, so what the process owns stays as few as the
    files it has."""

    def check(fence: Fence, args: tuple[Any, ...]) -> str | None:
        reals = []
        for path, folder in places(args):
            if isinstance(path, int):
                continue  # a file already open, through the fence
            real = _path(path, folder if isinstance(folder, int) else None, absolute=True)
            if real is None or not fence._is_own(real):
                return str(real or path)
            reals.append(real)
        for real in reals if removes else ():
            fence._forget(real)
        return None

    return check


def _sending(fence: Fence, args: tuple[Any, ...]) -> str | None:
    """``sendto``/``sendmsg``: to an address, judged as a connection; without one (a
    socket already connected, through the fence), let through."""
    return None if len(args) < 2 or args[1] is None else fence._connecting(args)


def _starting_once_judged(fence: Fence, fork_exec: Callable[..., Any]) -> Callable[..., Any]:
    """``fork_exec``, for the command line the fence has just let ``subprocess.Popen``
    start in this thread, and nothing else: :mod:`multiprocessing` starts its processes
    through it, with no event a hook would see."""

    def started(args: Any, *rest: Any, **kwargs: Any) -> Any:
        judged = getattr(fence._inside, "starting", None)
        fence._inside.starting = None
        try:
            line = [os.fsdecode(part) for part in args]
        except TypeError:
            line = None
        if judged is None or line != judged:
            raise PermissionError(errno.EACCES, "not from a browser tab of serve (a new process)")
        return fork_exec(args, *rest, **kwargs)

    return started


def _no_special_files(*args: Any, **kwargs: Any) -> None:
    """In place of ``os.mkfifo`` and ``os.mknod`` behind a fence (they raise no event)."""
    raise PermissionError(errno.EACCES, "not from a browser tab of serve (a special file)")


def _refuse(fence: Fence, args: tuple[Any, ...]) -> str:
    return " ".join(map(str, args[:1])) or "refused"


def _note_folder(fence: Fence, args: tuple[Any, ...]) -> None:
    fence._made_folder(args)


def _path_in(args: tuple[Any, ...]) -> list[tuple[Any, Any]]:
    """``(path, …, dir_fd)``: the path, in the folder its last argument names."""
    return [(args[0], args[-1])]


def _path_alone(args: tuple[Any, ...]) -> list[tuple[Any, Any]]:
    return [(args[0], None)]


def _two_paths(args: tuple[Any, ...]) -> list[tuple[Any, Any]]:
    """``(src, dst, src_dir_fd, dst_dir_fd)``."""
    src_folder, dst_folder = (*args[2:4], None, None)[:2]
    return [(args[0], src_folder), (args[1], dst_folder)]


CHECKS: Mapping[str, Checker] = MappingProxyType(
    {
        "open": Fence._open,
        "os.listdir": Fence._listing,
        "os.scandir": Fence._listing,
        "os.listxattr": Fence._listing,
        "os.mkdir": Fence._making_folder,
        "tempfile.mkdtemp": _note_folder,
        "os.remove": _changes(_path_in, removes=True),
        "os.rmdir": _changes(_path_in, removes=True),
        "os.chmod": _changes(_path_in),
        "os.chown": _changes(_path_in),
        "os.utime": _changes(_path_in),
        "os.truncate": _changes(_path_alone),
        "os.chflags": _changes(_path_alone),
        "os.setxattr": _changes(_path_alone),
        "os.removexattr": _changes(_path_alone),
        "os.rename": _changes(_two_paths),
        "os.link": _changes(_two_paths),
        "os.symlink": _refuse,
        # rmtree reads its folder after saying so: forgotten at its last os.rmdir.
        "shutil.rmtree": _changes(_path_in),
        "shutil.copyfile": _changes(lambda args: [(args[1], None)]),
        "shutil.copytree": _changes(lambda args: [(args[1], None)]),
        "shutil.move": _changes(lambda args: [(args[0], None), (args[1], None)]),
        "shutil.chown": _changes(_path_alone),
        "shutil.make_archive": _refuse,
        "shutil.unpack_archive": _refuse,
        "os.chdir": _refuse,
        "subprocess.Popen": Fence._starting,
        "os.system": _refuse,
        "os.exec": _refuse,
        "os.posix_spawn": _refuse,
        "os.spawn": _refuse,
        "os.fork": _refuse,
        "os.forkpty": _refuse,
        "os.startfile": _refuse,
        "pty.spawn": _refuse,
        "socket.getaddrinfo": Fence._resolving,
        "socket.gethostbyname": lambda fence, args: fence._resolving((args[0], None)),
        "socket.gethostbyname_ex": lambda fence, args: fence._resolving((args[0], None)),
        "socket.gethostbyaddr": _refuse,
        "socket.getnameinfo": _refuse,
        "socket.connect": Fence._connecting,
        "socket.sendto": _sending,
        "socket.sendmsg": _sending,
        "socket.bind": _refuse,
        "webbrowser.open": _refuse,
        # Even ":memory:": ATTACH and VACUUM INTO open any file, in C.
        "sqlite3.connect": _refuse,
        "sqlite3.enable_load_extension": _refuse,
        "sqlite3.load_extension": _refuse,
        "os.kill": Fence._signalling,
        "os.killpg": Fence._signalling,
        "import": lambda fence, args: args[0] if args and args[0] == "_posixsubprocess" else None,
    }
)
"""The events watched, each with its check: what it refuses (a place, an address, a
command), or None."""


def _path(path: Any, folder: int | None = None, *, absolute: bool = False) -> str | None:
    """``path`` as an absolute path with its links resolved (a relative one taken in
    ``folder``, an open folder, else the working folder); None if it is none, or, with
    ``absolute``, if it is relative without a ``folder``: an event that does not say
    which folder a path is taken in (``open`` never does) must name it whole."""
    try:
        text = os.fsdecode(path)
    except TypeError:
        return None
    if "\0" in text:
        return None
    if not os.path.isabs(text):
        if folder is None:
            return None if absolute else os.path.realpath(text)
        try:
            base = os.readlink(f"/proc/self/fd/{folder}")
        except OSError:
            return None
        text = os.path.join(base, text)
    return os.path.realpath(text)


def _choosing(env: Any) -> dict[str, str]:
    """The variables of ``env`` that choose what a Python runs (its paths, start-up
    files, libraries): an index process started with others would run other code."""
    try:
        return {
            os.fsdecode(name): os.fsdecode(value)
            for name, value in env.items()
            if os.fsdecode(name).startswith(("PYTHON", "LD_"))
        }
    except (AttributeError, TypeError):
        return {"": "unreadable"}


def _parent_of(pid: int) -> int | None:
    """The parent of process ``pid`` (``/proc``), or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return int(stat.read().rsplit(b")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def _working() -> str:
    try:
        return _real(os.getcwd())
    except OSError:  # removed meanwhile: no folder of the path is it
        return ""


def _real(place: str | Path) -> str:
    return os.path.realpath(os.fspath(place))


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _host(host: Any) -> str:
    if isinstance(host, bytes):
        host = host.decode("ascii", "replace")
    return str(host).strip("[]").lower()


def _is_ip(host: str) -> bool:
    try:
        socket.inet_pton(socket.AF_INET6 if ":" in host else socket.AF_INET, host)
    except OSError:
        return False
    return True
