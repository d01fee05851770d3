"""A screen closes itself, never the screen opened over it meanwhile (``ui/closing.py``)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import httpx
import pytest

from tokensales_tui.ui.screens.browse import BrowseScreen
from tokensales_tui.ui.screens.confirm import ConfirmScreen

from .apphelpers import rigged_app, wait_for, wait_for_screen
from .formhelpers import SIZE, fill, messages, open_form

UI = Path(__file__).parent.parent / "tokensales_tui" / "ui"
HOOKS = "/v1/platform-webhooks"
PAYOUTS = "/v1/payouts/add"


def counting(transport: object, path: str) -> list[str]:
    """The POSTs to ``path`` the rigged server has seen, as they come."""
    posts: list[str] = []

    def hook(request: httpx.Request) -> None:
        if request.method == "POST" and request.url.path == path:
            posts.append(path)

    transport.hook = hook  # type: ignore[attr-defined]
    return posts


@pytest.mark.parametrize(
    ("key", "over", "tab", "path", "values"),
    [
        (
            "ctrl+q",
            "DiscardScreen",
            "1",
            HOOKS,
            {"url": "https://a.example/h", "events": "item.sold"},
        ),
        (
            "ctrl+p",
            "SafePalette",
            "1",
            HOOKS,
            {"url": "https://a.example/h", "events": "item.sold"},
        ),
        ("ctrl+p", "SafePalette", "4", PAYOUTS, {"name": "Over", "type": "free"}),
    ],
)
async def test_a_form_answered_under_another_screen_closes_itself_and_leaves_that_screen(
    key: str, over: str, tab: str, path: str, values: dict[str, str]
) -> None:
    # The form's dismiss popped the screen on top: the question or the palette went, the
    # form stayed on "Sending POST…" with Submit live, and each ctrl+s sent another POST.
    app, transport = rigged_app()
    posts = counting(transport, path)
    async with app.run_test(size=SIZE) as pilot:
        form = await open_form(app, pilot, tab)
        transport.held[path] = release = asyncio.Event()  # the list's GET too, from now on
        await fill(pilot, **values)
        await pilot.press("ctrl+s")
        await wait_for(lambda: form.sending and bool(posts), pilot)
        await pilot.press(key)
        await wait_for_screen(app, pilot, over)
        top = app.screen
        release.set()
        await wait_for(lambda: form not in app.screen_stack, pilot)
        await pilot.pause()
        assert app.screen is top  # what was opened over the form stays open
        assert [type(s).__name__ for s in app.screen_stack] == ["BrowseScreen", over]
        await wait_for(
            lambda: any(m.startswith(("Created", "Added")) for m in messages(app)), pilot
        )
        del transport.held[path]
        await pilot.press("escape")
        await wait_for(lambda: isinstance(app.screen, BrowseScreen), pilot)
        await pilot.press("ctrl+s")
        await pilot.pause(0.2)
        assert posts == [path] and app.is_running


async def test_a_question_closed_under_another_screen_runs_its_answer_once() -> None:
    # A dialog's own close, when something opened over it first, takes out the dialog.
    from tokensales_tui.ui.closing import close
    from tokensales_tui.ui.screens.help import HelpScreen

    app, _transport = rigged_app()
    answers: list[bool | None] = []
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(lambda: isinstance(app.screen, BrowseScreen), pilot)
        question = ConfirmScreen("Delete it?", "thing")
        app.push_screen(question, answers.append)
        await wait_for_screen(app, pilot, "ConfirmScreen")
        help_screen = HelpScreen(app.browse.help_sections(app.keymap))
        app.push_screen(help_screen)
        await wait_for_screen(app, pilot, "HelpScreen")
        close(question, True)
        close(question, True)  # closed already: nothing
        await wait_for(lambda: not question.is_attached, pilot)
        await pilot.pause()
        assert answers == [True]
        assert app.screen is help_screen
        close(help_screen)
        await wait_for(lambda: isinstance(app.screen, BrowseScreen), pilot)
        assert answers == [True]


BARE = re.compile(
    r"\.dismiss\(|\bpop_screen\(|\bswitch_screen\(|\"(?:app\.)?(?:pop_screen|dismiss)\b"
)


def test_no_screen_of_the_app_closes_but_through_close() -> None:
    # A dismiss after an await (a form answered, a file saved) closed whatever was on top.
    found = [
        f"{path.relative_to(UI)}:{number}: {text.strip()}"
        for path in sorted(UI.rglob("*.py"))
        if path.name != "closing.py"
        for number, text in enumerate(path.read_text().splitlines(), start=1)
        if BARE.search(text)
    ]
    assert found == []
