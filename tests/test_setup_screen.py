"""The first-run setup screen and the config-error screen, driven through Pilot."""

from __future__ import annotations

import http.server
import json
import stat
import threading
from pathlib import Path
from typing import Any

import httpx
import pytest
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Input, Static

from tokensales_tui import config
from tokensales_tui.api import ApiClient, Secret
from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET, create_app
from tokensales_tui.ui.screens.config_error import ConfigErrorScreen
from tokensales_tui.ui.screens.setup import SetupResult, SetupScreen, _ProfileName

SIZE = (120, 40)
WRONG_SECRET = "Zq8xK41w"  # typed key by key, so short


class Host(App[None]):
    """Pushes one screen and records what it dismissed with."""

    def __init__(self, screen: Screen[Any]) -> None:
        super().__init__()
        self.first = screen
        self.results: list[Any] = []

    def on_mount(self) -> None:
        self.push_screen(self.first, self.results.append)


def emulator_transport() -> httpx.AsyncBaseTransport:
    return httpx.ASGITransport(app=create_app())


def setup_screen(path: Path) -> SetupScreen:
    return SetupScreen(transport_factory=emulator_transport, config_path=path)


async def fill(pilot: Pilot[Any], **values: str) -> None:
    """Set fields by id (``base_url`` -> ``#base-url``) and let the screen react, as typing would."""
    for name, value in values.items():
        pilot.app.screen.query_one(f"#{name.replace('_', '-')}", Input).value = value
    await pilot.pause()


def static_text(screen: Screen[Any], selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


def screen_text(app: App[Any]) -> str:
    """Everything a person could see: every Static's text, plus the whole rendered frame."""
    texts = [str(widget.render()) for widget in app.screen.query(Static)]
    return "\n".join([*texts, app.export_screenshot()])


async def saving_ended(pilot: Pilot[Any], screen: SetupScreen) -> None:
    """Let the save started end (it runs in a thread): saved, or its status says why not."""
    for _ in range(500):
        await pilot.pause(0.02)
        if not screen._saving_now():
            return
    raise AssertionError("the save did not end")


async def save_work(pilot: Pilot[Any]) -> None:
    """Fill the form with a profile "work" on the demo credentials and save it."""
    await fill(
        pilot,
        profile="work",
        base_url="https://api.example.test/",
        api_key=DEMO_API_KEY,
        api_secret=DEMO_API_SECRET,
    )
    screen = pilot.app.screen
    assert isinstance(screen, SetupScreen)
    await pilot.press("ctrl+s")
    await saving_ended(pilot, screen)


async def test_save_writes_a_working_profile(tmp_path: Path) -> None:
    path = tmp_path / "conf" / "config.toml"
    app = Host(setup_screen(path))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        assert isinstance(app.focused, Input) and app.focused.id == "profile"
        assert str(path) in screen_text(app)
        await save_work(pilot)
    assert app.results == [SetupResult("saved", "work")]

    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    saved = config.load_config(path)
    assert saved.default_profile == "work"
    profile = saved.profiles["work"]
    assert profile.base_url == "https://api.example.test"
    assert profile.auth_url is None and profile.console_url is None
    assert profile.api_key is not None and profile.api_key.reveal() == DEMO_API_KEY
    assert profile.api_secret is not None and profile.api_secret.reveal() == DEMO_API_SECRET

    resolved = config.resolve_profile(saved, cli=config.Overrides(), env={})
    async with ApiClient(resolved.connection(), transport=emulator_transport()) as client:
        assert await client.list_webhooks() is not None


async def test_save_into_a_hand_written_file_says_where_the_file_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('# my notes\n[profiles.old]\nbase_url = "https://old.example"  # keep\n')
    original = path.read_bytes()
    app = Host(setup_screen(path))
    async with app.run_test(size=SIZE) as pilot:
        await save_work(pilot)
        kept = tmp_path / "config.toml.bak"
        assert [n.message for n in app._notifications] == [
            f"Saved; the file as you wrote it, comments and all, is kept as {kept}"
        ]
    assert kept.read_bytes() == original
    assert sorted(config.load_config(path).profiles) == ["old", "work"]


async def test_bad_url_shows_the_message_and_does_not_save(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    app = Host(setup_screen(path))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await pilot.click("#base-url")
        await pilot.press(*"http://a.b")
        error = static_text(screen, "#base-url-error")
        assert "uses plain http:// to another machine" in error
        assert screen.query_one("#base-url", Input).has_class("-invalid")

        await fill(pilot, api_key="key")
        await pilot.click("#save")
        assert app.results == []
        assert not path.exists()
        assert app.focused is screen.query_one("#base-url", Input)
        assert screen.query_one("#api-key", Input).value == "key"


async def test_empty_required_fields_and_bad_name_are_reported(tmp_path: Path) -> None:
    app = Host(setup_screen(tmp_path / "config.toml"))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await fill(pilot, profile="my profile")
        await pilot.click("#save")
        assert static_text(screen, "#profile-error") == (
            "use only ASCII letters, digits, - and _ (a space is not one)"
        )
        assert static_text(screen, "#base-url-error") == "base URL is required"
        assert static_text(screen, "#api-key-error") == "API key is required"
        assert static_text(screen, "#auth-url-error") == ""
        assert app.results == []


async def test_save_refuses_to_replace_a_corrupt_file_and_keeps_the_fields(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.toml"
    path.write_text("default_profile = \n")
    app = Host(setup_screen(path))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await fill(
            pilot,
            base_url="https://api.example.test",
            api_key=DEMO_API_KEY,
            api_secret=DEMO_API_SECRET,
        )
        await pilot.click("#save")
        await saving_ended(pilot, screen)
        assert static_text(screen, "#status").startswith("not saved: ")
        assert screen.query_one("#base-url", Input).value == "https://api.example.test"
        assert screen.query_one("#api-secret", Input).value == DEMO_API_SECRET
        assert DEMO_API_SECRET not in screen_text(app)
    assert app.results == []
    assert path.read_text() == "default_profile = \n"


async def test_connection_with_demo_credentials_succeeds(tmp_path: Path) -> None:
    app = Host(setup_screen(tmp_path / "config.toml"))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await fill(
            pilot,
            base_url="https://api.example.test",
            api_key=DEMO_API_KEY,
            api_secret=DEMO_API_SECRET,
        )
        await pilot.click("#test")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert static_text(screen, "#status") == "Connected — token valid 60 min"
        assert screen.query_one("#status").has_class("-ok")
    assert app.results == []
    assert not (tmp_path / "config.toml").exists()


@pytest.mark.parametrize(
    "token",
    [
        {"accessToken": "a.b.c", "expiresIn": "1e999"},
        {"accessToken": "a.b.c", "expiresIn": 1.7e308},
        {"accessToken": "a.b.c", "expiresIn": 10**500},
    ],
)
async def test_connection_with_an_absurd_token_lifetime_still_answers(
    tmp_path: Path, token: dict[str, Any]
) -> None:
    body = json.dumps(token).encode()  # Python writes 10**500 out in full
    transport = httpx.MockTransport(lambda request: httpx.Response(200, content=body))
    app = Host(SetupScreen(transport_factory=lambda: transport, config_path=tmp_path / "c.toml"))
    async with app.run_test(size=SIZE) as pilot:
        await fill(pilot, base_url="https://api.example.test", api_key="k", api_secret="s")
        await pilot.click("#test")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Testing" not in static_text(app.screen, "#status")


async def test_connection_with_wrong_secret_fails_without_showing_it(tmp_path: Path) -> None:
    app = Host(setup_screen(tmp_path / "config.toml"))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        await fill(pilot, base_url="https://api.example.test", api_key=DEMO_API_KEY)
        await pilot.click("#api-secret")
        await pilot.press(*WRONG_SECRET)
        await pilot.click("#test")
        await app.workers.wait_for_complete()
        await pilot.pause()
        status = static_text(screen, "#status")
        assert "refused the credentials" in status
        assert screen.query_one("#status").has_class("-error")
        assert screen.query_one("#test").disabled is False
        shown = screen_text(app) + "".join(str(n.message) for n in app._notifications)
        assert DEMO_API_KEY in shown  # the scan does see what fields hold
        assert WRONG_SECRET not in shown


async def test_open_demo_dismisses_with_demo(tmp_path: Path) -> None:
    app = Host(setup_screen(tmp_path / "config.toml"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click("#demo")
        await pilot.pause()
    assert app.results == [SetupResult("demo", None)]


async def test_escape_returns_to_the_first_field_and_keeps_values(tmp_path: Path) -> None:
    app = Host(setup_screen(tmp_path / "config.toml"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("tab", "tab", "tab", "tab", "tab")
        assert app.focused is not None and app.focused.id == "api-secret"
        await pilot.press("x", "escape")
        assert app.focused is not None and app.focused.id == "profile"
        assert app.screen.query_one("#api-secret", Input).value == "x"
    assert app.results == []


def corrupt_error(tmp_path: Path) -> config.ConfigError:
    path = tmp_path / "config.toml"
    path.write_text('[profiles.prod]\nbase_url = "[bold red]x[/] [link=file:///etc]y[/link]"\n')
    with pytest.raises(config.ConfigError) as caught:
        config.load_config(path)
    return caught.value


async def test_config_error_screen_shows_where_and_why(tmp_path: Path) -> None:
    error = corrupt_error(tmp_path)
    app = Host(ConfigErrorScreen(error))
    async with app.run_test(size=SIZE) as pilot:
        text = screen_text(app)
        assert "The config file could not be read" in text
        assert f"{tmp_path / 'config.toml'}:2:1" in text
        assert "[bold red]x[/] [link=file:///etc]y[/link]" in text  # literally, not as markup
        assert "left unchanged" in text
        await pilot.click("#demo")
        await pilot.pause()
    assert app.results == ["demo"]


@pytest.mark.parametrize(("key", "expected"), [("d", "demo"), ("q", "quit")])
async def test_config_error_screen_keys(tmp_path: Path, key: str, expected: str) -> None:
    app = Host(ConfigErrorScreen(corrupt_error(tmp_path)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(key)
        await pilot.pause()
    assert app.results == [expected]


async def test_config_error_screen_quit_button(tmp_path: Path) -> None:
    app = Host(ConfigErrorScreen(corrupt_error(tmp_path)))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.click("#quit")
        await pilot.pause()
    assert app.results == ["quit"]


async def test_connection_to_a_wrong_address_names_the_url_it_tried(tmp_path: Path) -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(404, json={"error": "nope"}))
    app = Host(SetupScreen(transport_factory=lambda: transport, config_path=tmp_path / "c.toml"))
    async with app.run_test(size=SIZE) as pilot:
        await fill(pilot, base_url="https://api.example.test/v9", api_key="k", api_secret="s")
        await pilot.click("#test")
        await app.workers.wait_for_complete()
        await pilot.pause()
        status = static_text(app.screen, "#status")
        assert "https://api.example.test/v9/" in status and "404" in status
        assert "address is likely wrong, not the credentials" in status
        assert "refused the credentials" not in status


async def test_connection_over_https_to_a_plain_http_server_says_so(tmp_path: Path) -> None:
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        app = Host(SetupScreen(config_path=tmp_path / "c.toml"))  # the real network stack
        async with app.run_test(size=SIZE) as pilot:
            url = f"https://127.0.0.1:{server.server_port}"
            await fill(pilot, base_url=url, api_key="k", api_secret="s")
            await pilot.click("#test")
            await app.workers.wait_for_complete()
            await pilot.pause()
            status = static_text(app.screen, "#status")
            assert "did not answer in TLS: it looks like a plain http:// server" in status
    finally:
        server.shutdown()
        server.server_close()


async def test_a_bracket_typed_in_an_address_is_a_message_not_a_crash(tmp_path: Path) -> None:
    # Typing an IPv6 address ended the app at its "[", everything typed lost.
    app = Host(setup_screen(tmp_path / "config.toml"))
    async with app.run_test(size=SIZE) as pilot:
        app.screen.query_one("#base-url", Input).focus()
        await pilot.press(*"https://[")
        await pilot.pause()
        assert app.is_running
        assert "an unmatched [ or ]" in screen_text(app)
        await pilot.press(*"::1]:9450")
        await pilot.pause()
        assert app.screen.query_one("#base-url", Input).value == "https://[::1]:9450"


async def test_editing_keeps_the_profiles_own_rules_and_tests_through_its_proxy(
    tmp_path: Path,
) -> None:
    # The form refused an allow_insecure_http profile's own address, and its connection
    # test went straight to the server, past the profile's proxy.
    from tokensales_tui.ui.screens.setup import ProfileFormScreen

    stored = config.Profile(
        base_url="http://10.9.9.9:9450",
        allow_insecure_http=True,
        proxy="http://127.0.0.1:3128",
        max_body_mb=5,
        api_key=Secret("k"),
        api_secret=Secret("s"),
    )
    path = tmp_path / "config.toml"
    config.save_config(config.ConfigFile(profiles={"lab": stored}), path)
    screen = ProfileFormScreen(config.load_config(path), "lab", config_path=path)
    app = Host(screen)
    async with app.run_test(size=SIZE) as pilot:
        form = screen._read_form()
        assert form is not None and form.base_url == "http://10.9.9.9:9450"
        connection = form.connection(stored)
        assert connection.proxy == "http://127.0.0.1:3128"
        assert connection.max_body == 5 * 1024 * 1024
        await pilot.press("ctrl+s")
        await saving_ended(pilot, screen)
    assert app.results == [SetupResult("saved", "lab")]


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("café日本", "'é' U+00E9 is not one"),  # letters, but not ASCII: it said "use only letters"
        ("prоd", "'о' U+043E is not one"),  # a Cyrillic о, which reads as the Latin o
        ("pay\u200bpal", "U+200B is not one"),
        ("my profile", "a space is not one"),
    ],
)
def test_a_profile_name_is_ascii_and_the_message_says_so(name: str, said: str) -> None:
    result = _ProfileName().validate(name)
    assert result.failure_descriptions == [f"use only ASCII letters, digits, - and _ ({said})"]
    assert _ProfileName().validate("prod-2_eu").is_valid
