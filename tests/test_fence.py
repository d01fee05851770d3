"""The fence of an app served to a browser (``tokensales_tui.fence``): what it lets
through and what it refuses, judged (its checks, here), enforced (its hook, in a process
of its own: a hook cannot be taken away, and would fence this test run in), and put up
by the app itself once it is served."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import textual

from tokensales_tui import fence as fence_module
from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET
from tokensales_tui.emulator.server import EmulatorServer
from tokensales_tui.fence import Fence
from tokensales_tui.ui.index_process import command

PROGRAM = [sys.executable, "-m", "tokensales_tui.ui.index_process"]
NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL


@pytest.fixture
def temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary folder of the fence's own, apart from the test's other files."""
    folder = tmp_path / "temporary"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.fixture
def fence(isolated_home: Path, temporary: Path) -> Fence:
    return Fence(
        addresses=[
            "https://api.example.test",
            "http://127.0.0.1:9450",
            "http://proxy.example.test:3128",
        ],
        programs=[PROGRAM],
        private=[isolated_home / ".config" / "tokensales-tui"],
    )


def refused(fence: Fence, event: str, *args: object) -> bool:
    return fence.refusal(event, args) is not None


def test_it_reads_what_python_and_the_system_are_made_of_and_nothing_of_the_user(
    fence: Fence, isolated_home: Path, tmp_path: Path
) -> None:
    config = isolated_home / ".config" / "tokensales-tui" / "config.toml"
    for path in (textual.__file__, fence_module.__file__, os.__file__, "/etc/hosts"):
        assert not refused(fence, "open", path, "r", os.O_RDONLY), path
    assert not refused(fence, "os.scandir", str(Path(textual.__file__).parent))
    for path in (
        config,
        isolated_home / ".ssh" / "id_ed25519",
        isolated_home / ".bashrc",
        tmp_path / "notes.txt",  # another folder of the temporary folder: /tmp
        "/proc/self/environ",  # the process's environment holds the secret
        f"/proc/{os.getppid()}/cmdline",
        "/root/.bashrc",
        "/",
    ):
        assert refused(fence, "open", str(path), "r", os.O_RDONLY), path
        assert refused(fence, "os.listdir", str(path)), path
    # By a link, or by a relative path taken in a folder open by number: the same.
    link = tmp_path / "temporary" / "innocent"
    link.symlink_to(config)
    assert refused(fence, "open", str(link), "r", os.O_RDONLY)
    folder = os.open(isolated_home, os.O_RDONLY)
    try:
        assert refused(fence, "os.remove", ".bashrc", folder)
    finally:
        os.close(folder)


def test_the_code_it_runs_is_readable_wherever_it_is_installed_the_rest_of_home_not(
    isolated_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Installed in the home folder (a virtual environment, pyenv, a checkout), every
    # lazy import was refused: the tab froze at its first detail view.
    home = Path(sys.prefix).parent
    monkeypatch.setenv("HOME", str(home))
    fence = Fence(private=[isolated_home / ".config" / "tokensales-tui"])
    for path in (textual.__file__, fence_module.__file__, os.__file__):
        assert not refused(fence, "open", path, "r", os.O_RDONLY), path
    for path in (home / "notes.txt", home / ".ssh" / "id_ed25519", Path.cwd() / "x.py"):
        if not any(path.is_relative_to(root) for root in (sys.prefix, sys.base_prefix)):
            assert refused(fence, "open", str(path), "r", os.O_RDONLY), path


def test_paths_it_cannot_see_whole_are_refused(fence: Fence, isolated_home: Path) -> None:
    # ``open`` does not tell a hook the folder a relative path is taken in: /etc's
    # descriptor and "../home/…" had read a file of the home, judged as /usr/home/….
    assert refused(fence, "open", "../tmp/secret.txt", None, os.O_RDONLY)
    assert refused(fence, "open", "notes.txt", "r", os.O_RDONLY)
    assert refused(fence, "os.listdir", "..")
    assert refused(fence, "os.chdir", str(isolated_home))
    # The temporary folder itself, open to list it or to make files in by descriptor;
    # a file opened by ``open`` through an opener, or one without a name, is let through.
    directory = os.O_RDONLY | os.O_DIRECTORY
    assert refused(fence, "open", tempfile.gettempdir(), None, directory | os.O_APPEND)
    assert refused(fence, "open", tempfile.gettempdir(), None, directory)
    assert not refused(fence, "open", tempfile.gettempdir(), "w+b", os.O_RDWR | os.O_CREAT)
    if hasattr(os, "O_TMPFILE"):
        assert not refused(fence, "open", tempfile.gettempdir(), None, os.O_RDWR | os.O_TMPFILE)
    # Any code may say it made a folder: only one it just made is its own.
    fence.hook("tempfile.mkdtemp", (str(isolated_home),))
    assert refused(fence, "open", str(isolated_home / ".bashrc"), "r", os.O_RDONLY)
    assert refused(fence, "os.mkdir", str(isolated_home), 0o700, -1)
    assert refused(fence, "os.mkdir", str(Path(tempfile.gettempdir()) / "chosen"), 0o700, -1)


def test_it_writes_only_into_folders_it_made_and_new_temporary_files(
    fence: Fence, isolated_home: Path, temporary: Path
) -> None:
    for path in (isolated_home / "x", "/etc/hosts", temporary / "existing"):
        assert refused(fence, "open", str(path), "w", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        assert refused(fence, "open", str(path), "a", os.O_WRONLY | os.O_APPEND)
        assert refused(fence, "open", str(path), "r+", os.O_RDWR)
        assert refused(fence, "os.remove", str(path), None)
        assert refused(fence, "os.chmod", str(path), 0o777, None)
    # A new file of the temporary folder (created, never another's): its own, so it may
    # go; an open file, by number, is the process's already.
    new = temporary / "tmp-spool"
    assert not refused(fence, "open", str(new), None, NEW_FILE)
    assert not refused(fence, "os.remove", str(new), None)
    assert not refused(fence, "open", 3, "wb", os.O_WRONLY)
    assert not refused(fence, "os.chmod", 3, 0o600, None)
    assert not refused(fence, "open", os.devnull, "w", os.O_WRONLY)

    # A folder made by tempfile.mkdtemp: named, then made; its files after that.
    private = temporary / "tokensales-export-x"
    inside = private / "items.csv"
    assert refused(fence, "os.mkdir", str(private), 0o700, None)  # not named first
    fence.hook("tempfile.mkdtemp", (str(private),))
    assert refused(fence, "open", str(inside), "wb", NEW_FILE)
    assert not refused(fence, "os.mkdir", str(private), 0o700, -1)
    private.mkdir(0o700)
    assert not refused(fence, "open", str(inside), "wb", NEW_FILE)
    assert not refused(fence, "os.rename", str(inside), str(private / "b"), None, None)
    assert not refused(fence, "os.link", str(inside), str(private / "c"), None, None)
    assert refused(fence, "os.rename", str(inside), str(isolated_home / ".bashrc"), None, None)
    assert refused(fence, "os.link", str(inside), str(isolated_home / "b"), None, None)
    assert refused(fence, "os.symlink", str(isolated_home), str(private / "d"), None)
    assert refused(fence, "os.mkdir", str(isolated_home / "new"), 0o700, None)
    assert refused(fence, "shutil.rmtree", str(isolated_home), None)
    # What it removes is its own no more: a file, a folder and what was in it.
    assert not refused(fence, "open", str(temporary / "tmp-other"), None, NEW_FILE)
    assert not refused(fence, "os.remove", str(temporary / "tmp-other"), None)
    assert refused(fence, "open", str(temporary / "tmp-other"), "wb", os.O_WRONLY | os.O_TRUNC)
    assert not refused(fence, "shutil.rmtree", str(private), None)
    assert not refused(fence, "open", str(inside), "rb", os.O_RDONLY)  # rmtree reads it
    assert not refused(fence, "os.rmdir", str(private), -1)  # and removes it, at last
    assert refused(fence, "open", str(inside), "wb", NEW_FILE)
    # A folder of the temporary folder named by another's mkdtemp is not its own.
    assert refused(fence, "open", str(temporary / "other" / "f"), "wb", NEW_FILE)


def test_its_own_places_are_kept_whole_by_many_threads_at_once(
    fence: Fence, temporary: Path
) -> None:
    # The hook runs in every thread: an export's folder made while a spool's file is
    # judged. Each thread's folders come and go; none disturbs another's check.
    failures: list[BaseException] = []

    def work(number: int) -> None:
        try:
            for turn in range(150):
                folder = temporary / f"t{number}-{turn}"
                fence.hook("tempfile.mkdtemp", (str(folder),))
                fence.hook("os.mkdir", (str(folder), 0o700, -1))
                assert not refused(fence, "open", str(folder / "f"), "wb", NEW_FILE)
                assert refused(fence, "open", str(Path.home() / "elsewhere"), "wb", NEW_FILE)
                fence.hook("os.rmdir", (str(folder), -1))
        except BaseException as error:
            failures.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert fence._own == set()  # all removed: nothing kept


def test_it_starts_only_its_index_process(
    fence: Fence, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tokensales_tui.ui.index_process import environment

    assert not refused(fence, "subprocess.Popen", None, PROGRAM, None, None)
    assert not refused(fence, "subprocess.Popen", sys.executable, PROGRAM, None, environment())
    # Its command line run by another program, in another folder, or with variables
    # that make Python run other code (a sitecustomize.py of a folder of its own).
    assert refused(fence, "subprocess.Popen", "/bin/echo", PROGRAM, None, None)
    assert refused(fence, "subprocess.Popen", None, PROGRAM, str(tmp_path), None)
    for variable in ("PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "LD_PRELOAD"):
        env = {**os.environ, variable: str(tmp_path)}
        assert refused(fence, "subprocess.Popen", None, PROGRAM, None, env), variable
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # changed after the fence went up
    assert refused(fence, "subprocess.Popen", None, PROGRAM, None, None)
    monkeypatch.undo()
    for line in (["/bin/sh", "-c", "id"], [*PROGRAM, "--more"], PROGRAM[:2], "xdg-open"):
        assert refused(fence, "subprocess.Popen", None, line, None, None), line
    assert refused(fence, "os.system", b"id")
    assert refused(fence, "os.exec", "/bin/sh", ["sh"], None)
    assert refused(fence, "os.posix_spawn", "/bin/sh", ["sh"], None)
    assert refused(fence, "os.fork")
    assert refused(fence, "webbrowser.open", "https://example.test")
    assert command() == PROGRAM  # the line the app starts is the one let through


def test_it_reaches_its_profiles_addresses_and_no_other(fence: Fence) -> None:
    for host, port in (
        ("api.example.test", 443),
        (b"API.example.test", "443"),
        ("127.0.0.1", 9450),
        ("proxy.example.test", 3128),
    ):
        assert not refused(fence, "socket.getaddrinfo", host, port, 0, 0, 0), host
    for host, port in (
        ("api.example.test", 80),
        ("evil.example.test", 443),
        ("127.0.0.1", 22),
        ("localhost", 9450),
    ):
        assert refused(fence, "socket.getaddrinfo", host, port, 0, 0, 0), host
    assert refused(fence, "socket.gethostbyname", "evil.example.test")

    with socket.socket() as tcp, socket.socket(socket.AF_UNIX) as local:
        assert not refused(fence, "socket.connect", tcp, ("127.0.0.1", 9450))
        assert refused(fence, "socket.connect", tcp, ("127.0.0.1", 9451))
        assert refused(fence, "socket.connect", local, "/run/docker.sock")
        assert refused(fence, "socket.bind", tcp, ("0.0.0.0", 8080))
        assert refused(fence, "socket.sendto", tcp, ("127.0.0.1", 53))
    # A name's addresses are those its look-up found, on its port: a number on the
    # port of a name is not the name (asyncio connects to numbers with no look-up).
    named = Fence(addresses=["http://localhost:9450", "https://api.example.test"])
    with socket.socket() as tcp:
        assert refused(named, "socket.connect", tcp, ("127.0.0.1", 9450))
        assert refused(named, "socket.connect", tcp, ("10.9.9.9", 443))
        found = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", 9450))]
        named.learned("localhost", found)
        assert not refused(named, "socket.connect", tcp, ("127.0.0.1", 9450))
        assert refused(named, "socket.connect", tcp, ("127.0.0.1", 443))
        assert refused(named, "socket.connect", tcp, ("10.9.9.9", 443))
    # A socket connected (through the fence) sends without naming an address again.
    with socket.socket() as tcp:
        assert not refused(fence, "socket.sendmsg", tcp, None)
        assert not refused(fence, "socket.sendto", tcp, None)
        assert refused(fence, "socket.sendmsg", tcp, ("10.9.9.9", 53))
    # Only addresses written as numbers: a connection is to one of them, port and all.
    literal = Fence(addresses=["http://127.0.0.1:9450"])
    with socket.socket() as tcp:
        assert refused(literal, "socket.connect", tcp, ("127.0.0.2", 9450))
        assert refused(literal, "socket.connect", tcp, ("127.0.0.1", 443))
    # No address at all (the demo, served in the process): nothing is reached.
    alone = Fence()
    assert refused(alone, "socket.getaddrinfo", "api.example.test", 443, 0, 0, 0)


ENFORCED = r"""
import json, os, socket, subprocess, sys, tempfile, shutil, webbrowser
from pathlib import Path
from tokensales_tui.fence import Fence, fence_in

config = Path(sys.argv[1])
listening = int(sys.argv[2])
# A browser this machine has (none may be installed): opening it starts "true".
webbrowser.register("here", None, webbrowser.GenericBrowser("true"), preferred=True)
from tokensales_tui.ui.index_process import command
fence_in(Fence(addresses=[], programs=[command()], private=[config.parent]))
tried = {}

def attempt(name, action):
    try:
        action()
    except PermissionError as error:
        tried[name] = "refused: " + str(error)
    except Exception as error:
        tried[name] = "failed otherwise: %s: %s" % (type(error).__name__, error)
    else:
        tried[name] = "done"

attempt("read config", lambda: config.read_bytes())
attempt("write home", lambda: (Path.home() / "x").write_text("x"))
attempt("start a program", lambda: subprocess.run(["true"]))
attempt("open the browser", lambda: webbrowser.open("https://example.test"))
attempt("connect", lambda: socket.create_connection(("127.0.0.1", listening), timeout=5))
def private_folder():
    folder = Path(tempfile.mkdtemp())
    (folder / "f").write_text("x")
    shutil.rmtree(folder)
    assert not folder.exists()
attempt("private folder", private_folder)
def spool():
    with tempfile.TemporaryFile() as file:
        file.write(b"x")
attempt("spool", spool)
attempt("import", lambda: __import__("xml.dom.minidom"))
def other_process():
    import multiprocessing
    child = multiprocessing.get_context("spawn").Process(target=print)
    child.start()
    child.join(30)
attempt("start a process of multiprocessing", other_process)
import sqlite3
attempt("open a database", lambda: sqlite3.connect(str(config.parent / "x.db")))
def attach():
    memory = sqlite3.connect(":memory:")
    memory.execute(f"ATTACH DATABASE '{Path.home() / 'attached.db'}' AS a")
attempt("open a database by another", attach)
def start_unjudged():
    read, write = os.pipe()
    subprocess._fork_exec(
        [b"/bin/sh", b"-c", b"true"], [b"/bin/sh"], True, (), None, None,
        -1, -1, -1, -1, -1, -1, read, write, False, False, -1, None, None, None, -1, None, False,
    )
attempt("start a program past subprocess", start_unjudged)
def import_again():
    del sys.modules["_posixsubprocess"]
    import _posixsubprocess
attempt("import the process starter again", import_again)
attempt("make a FIFO", lambda: os.mkfifo(str(Path.home() / "fifo")))
attempt("make a file by mknod", lambda: os.mknod(str(Path.home() / "made")))
attempt("signal the parent", lambda: os.kill(os.getppid(), 0))
def taken_name():
    taken = Path(tempfile.gettempdir()) / "taken"  # another's folder
    try:
        os.open(str(taken), os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        pass
    os.listdir(taken)
attempt("own a name taken in the temporary folder", taken_name)
def index_process():
    from tokensales_tui.ui.index_process import environment
    child = subprocess.Popen(command(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, env=environment())
    child.kill()
    child.wait(30)
attempt("start and stop the index process", index_process)
def connected():
    one, two = socket.socketpair()
    one.sendmsg([b"a connected socket sends"])
    assert two.recv(100) == b"a connected socket sends"
attempt("send on a connected socket", connected)
def relative():
    etc = os.open("/etc", os.O_RDONLY)
    os.open("../" + str(config).lstrip("/"), os.O_RDONLY, dir_fd=etc)
attempt("read config by a folder", relative)
attempt("start another program as the index", lambda: subprocess.run(command(), executable="/bin/echo"))
print(json.dumps(tried))
"""


def test_the_hook_refuses_in_a_process_whatever_library_asks(
    isolated_home: Path, temporary: Path
) -> None:
    config = isolated_home / ".config" / "tokensales-tui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("# secrets\n")
    (temporary / "taken").mkdir()
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen()
        port = listening.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-c", ENFORCED, str(config), str(port)],
            capture_output=True,
            text=True,
            timeout=60,
            cwd="/usr",  # a readable folder, where "../tmp/…" would have been judged
            env={**os.environ, "TMPDIR": str(temporary)},
        )
    assert done.returncode == 0, done.stderr
    tried = json.loads(done.stdout)
    for name in (
        "read config",
        "write home",
        "start a program",
        "open the browser",
        "connect",
        "read config by a folder",
        "start another program as the index",
        "start a process of multiprocessing",
        "open a database",
        "open a database by another",
        "start a program past subprocess",
        "import the process starter again",
        "make a FIFO",
        "make a file by mknod",
        "signal the parent",
        "own a name taken in the temporary folder",
    ):
        assert tried[name].startswith("refused: [Errno 13] not from a browser tab of serve"), (
            name,
            tried[name],
        )
    for name in (
        "private folder",
        "spool",
        "import",
        "send on a connected socket",
        "start and stop the index process",
    ):
        assert tried[name] == "done", (name, tried[name])
    assert not (isolated_home / "x").exists()
    assert [p.name for p in isolated_home.iterdir()] == [".config"]
    assert [p.name for p in temporary.iterdir()] == ["taken"]


SERVED = r"""
import asyncio, json, os, socket, sys, webbrowser
from pathlib import Path
from tokensales_tui.fence import fence_in, is_fenced
from tokensales_tui.session import Launch
from tokensales_tui.ui import index_process
from tokensales_tui.ui.app import TokenSalesApp

started = []
start = index_process.IndexProcess.start.__func__

async def counting(cls, setup):
    process = await start(cls, setup)
    started.append(1)
    return process

index_process.IndexProcess.start = classmethod(counting)
# As on a machine of four processors: the rows are indexed by a process as they arrive.
index_process.processors = lambda: 4

webbrowser.register("here", None, webbrowser.GenericBrowser("true"), preferred=True)

async def main():
    launch = Launch(env=dict(os.environ), served=True, fence=fence_in)
    app = TokenSalesApp(launch)
    out = {}
    async with app.run_test(headless=True, size=(120, 40)) as pilot:
        for _ in range(3000):
            await asyncio.sleep(0.05)
            tabs = app.browse.tabs
            if all(tab.error or tab.loaded_once and tab.table.model.index_ready for tab in tabs):
                break
        out["errors"] = [str(tab.error) for tab in app.browse.tabs if tab.error]
        out["items"] = app.browse.tab("items").table.total_count
        out["fenced"] = is_fenced()
        out["index processes"] = len(started)
        for name, action in (
            ("config", lambda: Path(sys.argv[1]).read_bytes()),
            ("browser", lambda: webbrowser.open("https://example.test")),
        ):
            try:
                action()
            except PermissionError:
                out[name] = "refused"
            else:
                out[name] = "done"
    print(json.dumps(out))

asyncio.run(main())
"""


@pytest.fixture
def emulator() -> Iterator[EmulatorServer]:
    from .test_reliability_network import serving

    with serving(EmulatorServer("127.0.0.1", 0, items=200_000)) as server:
        yield server


def test_a_served_app_fences_itself_in_and_works_behind_its_fence(
    emulator: EmulatorServer, isolated_home: Path, temporary: Path
) -> None:
    # Served (Launch.served, with the fence serve's process gets): a profile of this
    # machine's emulator, its 200,000 items indexed by index processes, behind a fence put
    # up once the config was read; what a tab could ask of the machine is refused.
    config = isolated_home / ".config" / "tokensales-tui" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text(
        f'[profiles.local]\nbase_url = "{emulator.url}"\n'
        f'api_key = "{DEMO_API_KEY}"\napi_secret = "{DEMO_API_SECRET}"\n'
    )
    config.chmod(0o600)
    done = subprocess.run(
        [sys.executable, "-c", SERVED, str(config)],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "TMPDIR": str(temporary)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["errors"] == []
    assert out["items"] == 200_000
    assert out["fenced"]
    assert out["index processes"] >= 1
    assert out["config"] == "refused" and out["browser"] == "refused"
    assert list(temporary.iterdir()) == []


async def test_a_served_app_asks_for_a_fence_of_its_profiles_addresses_once_configured() -> None:
    # In this process the fence is recorded, not put up (it would fence the test run in).
    from tokensales_tui.session import Launch
    from tokensales_tui.ui.app import TokenSalesApp

    from .apphelpers import EMULATOR_URL, loaded, rigged_app

    fences: list[Fence] = []
    app, _transport = rigged_app(served=True, fence=fences.append)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
    [fence] = fences
    parts = urlsplit(EMULATOR_URL)
    host, port = parts.hostname, parts.port
    assert fence.refusal("socket.getaddrinfo", (host, port, 0, 0, 0)) is None
    assert fence.refusal("socket.getaddrinfo", ("elsewhere.example", port, 0, 0, 0))
    assert fence.refusal("subprocess.Popen", (sys.executable, command(), None, None)) is None

    # The demo, served in the process, reaches no address; an app not served, no fence.
    fences.clear()
    app = TokenSalesApp(Launch(demo=True, served=True, fence=fences.append))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
    [fence] = fences
    assert fence.refusal("socket.getaddrinfo", (host, port, 0, 0, 0))
    fences.clear()
    app = TokenSalesApp(Launch(demo=True, fence=fences.append))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
    assert fences == []


def test_the_app_serve_starts_is_given_the_fence(monkeypatch: pytest.MonkeyPatch) -> None:
    # How serve starts a tab's app (``--served``); by hand, the app is not fenced.
    import tokensales_tui.ui.app
    from tokensales_tui import cli
    from tokensales_tui.session import Launch

    launches: list[Launch] = []

    class Started:
        return_code = 0

        def __init__(self, launch: Launch) -> None:
            launches.append(launch)

        def run(self) -> None:
            pass

    monkeypatch.setattr(tokensales_tui.ui.app, "TokenSalesApp", Started)
    monkeypatch.setattr(cli, "has_terminal", lambda: True)
    assert cli.main(["--served", "--demo"]) == 0
    assert cli.main(["--demo"]) == 0
    served, by_hand = launches
    assert served.served and served.fence is fence_module.fence_in
    assert not by_hand.served
