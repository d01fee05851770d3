"""Crash output never holds a secret or a token."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console

from tokensales_tui.ui.crash import crash_report, redact

TOKEN = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkZW1vIn0.c2lnbmF0dXJlLXZhbHVl"


def test_redact_masks_secrets_jwts_and_bearer_values() -> None:
    text = (
        f"key=mk_live_123 secret=s3cr3t-value token {TOKEN} Authorization: Bearer abcdefgh12345678"
    )
    cleaned = redact(text, ["s3cr3t-value", "mk_live_123"])
    assert "s3cr3t-value" not in cleaned and "mk_live_123" not in cleaned
    assert TOKEN not in cleaned and "abcdefgh12345678" not in cleaned
    assert "Bearer ********" in cleaned


def test_crash_report_of_an_exception_with_secrets_in_locals_and_message() -> None:
    def fail() -> None:
        api_secret = "s3cr3t-value"  # a local the default Textual report would print
        headers = {"Authorization": "Bearer " + TOKEN}
        raise RuntimeError(f"boom with {api_secret} and {headers}")

    console = Console(file=io.StringIO(), width=100, color_system=None)
    try:
        fail()
    except RuntimeError:
        report = crash_report(console, ["s3cr3t-value"])
    console.print(report)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert "RuntimeError" in output and "boom with" in output
    assert "s3cr3t-value" not in output and TOKEN not in output


async def test_the_app_crash_report_holds_no_secret_or_token() -> None:
    import pytest

    from tokensales_tui.emulator import DEMO_API_KEY, DEMO_API_SECRET
    from tokensales_tui.session import Launch
    from tokensales_tui.ui.app import TokenSalesApp

    from .apphelpers import loaded

    app = TokenSalesApp(Launch(demo=True))
    reports: list[str] = []
    with pytest.raises(RuntimeError, match="exploded"):
        async with app.run_test(size=(100, 30)) as pilot:
            await loaded(app, pilot)
            token = app.api.secrets_in_use()[0]
            assert token.startswith("eyJ")

            def explode() -> None:
                api_secret = DEMO_API_SECRET  # noqa: F841 - a local Textual would print
                raise RuntimeError(f"exploded holding {token}")

            original = app._close_messages_no_wait

            def capture() -> None:
                console = Console(file=io.StringIO(), width=100, color_system=None)
                for renderable in app._exit_renderables:
                    console.print(renderable)
                reports.append(console.file.getvalue())  # type: ignore[attr-defined]
                original()

            app._close_messages_no_wait = capture  # type: ignore[method-assign]
            app.call_later(explode)
            await pilot.pause(0.5)
    (report,) = reports
    assert "RuntimeError" in report and "exploded holding" in report
    for secret in (DEMO_API_SECRET, DEMO_API_KEY, token):
        assert secret not in report


def test_a_crash_report_shows_an_error_s_controls_and_invisible_characters_as_marks() -> None:
    # Rich wrote an ESC of the message to the terminal: ESC ] 52 wrote its clipboard.
    import re

    console = Console(file=io.StringIO(), width=100, color_system=None)
    try:
        raise RuntimeError("server said \x1b]52;c;aGk=\x07 pay\u200bpal \u202eevil \x9b31m end")
    except RuntimeError:
        report = crash_report(console)
    console.print(report)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert "RuntimeError: server said ␛]52;c;aGk=␇ pay⸱pal �evil �31m end" in output
    assert re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b\u202e]", output) is None


def test_a_crash_report_is_laid_out_as_it_shows() -> None:
    # A message's zero-width characters, each shown "⸱", were measured as nothing: its
    # lines ran past the terminal's width.
    console = Console(file=io.StringIO(), width=60, color_system=None)
    try:
        raise RuntimeError("ab\u200b" * 50)
    except RuntimeError:
        report = crash_report(console)
    console.print(report)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    assert output.count("ab⸱") == 50
    assert max(len(line) for line in output.splitlines()) <= 60


def test_a_line_with_a_secret_masked_keeps_its_colours() -> None:
    # The whole line was written again as one plain piece: "RuntimeError:" lost its red.
    import re

    console = Console(file=io.StringIO(), width=100, color_system="truecolor")
    try:
        raise RuntimeError("holding s3cr3t-value now")
    except RuntimeError:
        report = crash_report(console, ["s3cr3t-value"])
    console.print(report)
    output = console.file.getvalue()  # type: ignore[attr-defined]
    (masked,) = [line for line in output.splitlines() if "holding" in line and "raise" not in line]
    assert re.sub(r"\x1b\[[0-9;]*m", "", masked) == "RuntimeError: holding ******** now"
    assert re.match(r"\x1b\[[0-9;]+mRuntimeError: \x1b\[0m", masked), repr(masked)


def test_a_source_line_shown_otherwise_keeps_the_box_edge_in_line(tmp_path: Path) -> None:
    # Rich measured a source line as it read it: each zero-width character shown "⸱"
    # then pushed the box's right edge a cell out, and a secret masked pulled it in.
    import importlib.util
    import re

    from rich.cells import cell_len

    source = tmp_path / "failing.py"
    source.write_text(
        "def fail():\n"
        '    raise RuntimeError("pay\\u200bpal")  # pay\u200bpal\u200b\u200b, sure\n'
        "# the key s3cr3t-value-long was here\n",
        encoding="utf-8",
    )
    spec = importlib.util.spec_from_file_location("failing", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    console = Console(file=io.StringIO(), width=60, color_system="truecolor")
    try:
        module.fail()
    except RuntimeError:
        report = crash_report(console, ["s3cr3t-value-long"])
    console.print(report)
    output = re.sub(r"\x1b\[[0-9;]*m", "", console.file.getvalue())  # type: ignore[attr-defined]
    boxed = [line for line in output.splitlines() if line.startswith(("│", "╭", "╰"))]
    assert any("pay⸱pal⸱⸱" in line for line in boxed), boxed
    assert any("********" in line for line in boxed), boxed
    assert "s3cr3t-value-long" not in output
    assert {cell_len(line) for line in boxed} == {60}, boxed
    assert all(line.endswith(("│", "╮", "╯")) for line in boxed), boxed
