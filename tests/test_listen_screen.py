"""The listen screen: live deliveries, hostile ones drawn safely, detail, replay, floods."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest

from tokensales_tui.ui.listen_app import ListenApp
from tokensales_tui.ui.screens.deliveries import REFRESH_SECONDS, DeliveriesScreen
from tokensales_tui.ui.screens.detail import DetailScreen
from tokensales_tui.ui.widgets.delivery_list import SIZE_WIDTH, column_widths, size_cell
from tokensales_tui.webhooks import receiver as receiver_module
from tokensales_tui.webhooks.listen import Listening, ListenOptions
from tokensales_tui.webhooks.signatures import standard_headers

from .tripwire import Tripwire
from .webhookhelpers import Recorder, post_in_process, serve_on_loopback, trickling_target

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
HOSTILE = "\x1b]52;c;SGVsbG8=\x07\x1b[2J\x9b31m[@click=app.quit]x[/] a [/] b \u202e\ud800"


def _screen_text(app: ListenApp) -> str:
    return "\n".join(
        "".join(segment.text for segment in strip)
        for strip in app.screen._compositor.render_strips()
    )


async def _raw_post(url: str, body: bytes) -> None:
    """A POST whose header values hold C1 controls and markup (httpx refuses to send them)."""
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    head = (
        b"POST / HTTP/1.1\r\nHost: x\r\nX-Event-Type: \x9b31m[@click=app.quit]x[/] \xe2\x80\xae\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n"
    )
    writer.write(head + body)
    await writer.drain()
    assert (await reader.readline()).startswith(b"HTTP/1.1 200")
    writer.close()


async def _wait_for_count(pilot, app: ListenApp, count: int) -> None:
    for _ in range(400):
        await pilot.pause(0.05)
        if len(app.deliveries.delivery_list._rows) >= count:
            return
    raise AssertionError(f"{count} deliveries never showed")


async def test_hostile_deliveries_show_as_text_open_and_replay(terminal_tripwire: Tripwire) -> None:
    target = Recorder()
    async with serve_on_loopback(target.app()) as target_url:
        options = ListenOptions(forward_to=target_url, secret=SECRET)
        async with Listening(options) as listening:
            app = ListenApp(listening)
            async with app.run_test(size=(120, 40)) as pilot:
                body = json.dumps({"type": HOSTILE, "data": {"k": HOSTILE}}).encode()
                headers = standard_headers(SECRET, "msg_1", int(time.time()), body)
                headers["x-note"] = "\x1b]0;title\x07"
                headers["authorization"] = "Bearer sk_live_do_not_show"
                async with httpx.AsyncClient(trust_env=False) as client:
                    await client.post(listening.url + "/p%1b?q=%9b", content=body, headers=headers)
                    await _raw_post(listening.url, b"\x1b[31mnot json\x9b")
                await _wait_for_count(pilot, app, 2)
                text = _screen_text(app)
                assert "2 received" in text and "valid · Standard Webhooks" in text
                assert "unsigned" in text and "200 (" in text
                await pilot.press("k", "enter")
                assert isinstance(app.screen, DetailScreen)
                detail = _screen_text(app)
                assert "webhook-signature" in detail and "x-note" in detail
                fields = dict(app.screen._fields)
                assert fields["authorization"] == "********"
                assert "sk_live_do_not_show" not in detail
                await pilot.press("escape")
                assert isinstance(app.screen, DeliveriesScreen)
                await pilot.press("r")
                for _ in range(200):
                    await pilot.pause(0.05)
                    if len(target.received) == 3:
                        break
                assert len(target.received) == 3
                assert target.received[2][1]["webhook-id"] == "msg_1"
                await pilot.press("c")
                assert terminal_tripwire.clipboard and "\x1b" not in terminal_tripwire.clipboard[-1]
                await pilot.press("q")
    # The tripwire (autouse) fails the test if any control character reached the screen.
    assert terminal_tripwire.updates > 0


async def test_a_delivery_listen_fails_to_judge_is_listed_with_an_error_verdict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a fault planted by the test")

    async with Listening(ListenOptions(secret=SECRET)) as listening:
        app = ListenApp(listening)
        async with app.run_test(size=(120, 40)) as pilot:
            monkeypatch.setattr(receiver_module, "verify", boom)
            async with httpx.AsyncClient(trust_env=False) as client:
                answer = await client.post(listening.url, json={"type": "item.sold"})
            await _wait_for_count(pilot, app, 1)
            text = _screen_text(app)
            assert answer.status_code == 500
            assert "1 received" in text and "error: listen failed, not judged" in text
            await pilot.press("enter")
            assert isinstance(app.screen, DetailScreen)
            assert "not judged" in _screen_text(app)


async def test_a_replay_shows_it_is_on_its_way_until_its_deadline() -> None:
    async with Listening(ListenOptions()) as listening:
        app = ListenApp(listening)
        async with app.run_test(size=(120, 40)) as pilot:
            async with httpx.AsyncClient(trust_env=False) as client:
                await client.post(listening.url, json={"type": "item.sold"})
            await _wait_for_count(pilot, app, 1)
            async with trickling_target() as url:
                listening.receiver.forward_to = url
                listening.receiver.relay_deadline = 1.0
                await pilot.press("r")
                await pilot.pause(0.3)
                assert "replaying…" in _screen_text(app)
                assert any("Replaying #1 to" in str(n.message) for n in app._notifications)
                for _ in range(100):
                    await pilot.pause(0.05)
                    if "timed out" in _screen_text(app):
                        break
                text = _screen_text(app)
                assert "replayed timed out: no answer" in text
                assert "replaying…" not in text


async def test_a_flood_of_arrivals_costs_a_few_redraws() -> None:
    async with Listening(ListenOptions(keep=50)) as listening:
        app = ListenApp(listening)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            view = app.deliveries.delivery_list
            before = view.redraws
            async with httpx.AsyncClient(trust_env=False) as client:
                await client.post(listening.url, json={"type": "first"})
            # A thousand changes inside one turn of the loop: marked stale, drawn once.
            first = listening.receiver.deliveries[0]
            for _ in range(1000):
                listening.receiver.on_change(first)  # type: ignore[misc]
            for _ in range(400):
                await pilot.pause(0.05)
                if "1 received" in _screen_text(app) and not app.deliveries._stale:
                    break
            assert "1 received" in _screen_text(app)
            # Arrival, answer, the thousand changes: three stale marks at most, one at least.
            assert 1 <= view.redraws - before <= 3


async def test_a_flood_of_stalled_bodies_is_counted_and_leaves_real_deliveries_listed() -> None:
    # Each body listen stops waiting for is a request, listed; they were not counted apart,
    # pushed the real deliveries out, and the cursor jumped off the one being read.
    stalled = "no complete request within 5 s"
    async with Listening(ListenOptions()) as listening:
        receiver = listening.receiver
        app = ListenApp(listening)
        async with app.run_test(size=(120, 40)) as pilot:
            await post_in_process(receiver, b'{"type": "real.one"}')
            for _ in range(19):
                await post_in_process(receiver, b"abc", announced=100, closed_by=stalled)
            await post_in_process(receiver, b'{"type": "real.two"}')
            await post_in_process(receiver, b"abc", announced=100, closed_by=stalled)
            await _wait_for_count(pilot, app, 12)
            await pilot.press("G", "k")  # on real.two, rows cut short on either side
            view = app.deliveries.delivery_list
            assert view.highlighted is not None and view.highlighted.number == 21
            for _ in range(200):
                await post_in_process(receiver, b"abc", announced=100, closed_by=stalled)
            await pilot.pause(REFRESH_SECONDS * 3)
            assert view.highlighted is not None and view.highlighted.number == 21
            text = _screen_text(app)
            assert "222 received, 220 cut short (220 by listen), 12 listed" in text
            assert "real.one" in text and "real.two" in text  # in view, never scrolled off
            assert "invalid: listen closed the conn" in text  # the why: in the detail view


async def test_escape_leaves_the_app_and_the_receiver_stops() -> None:
    async with Listening(ListenOptions()) as listening:
        app = ListenApp(listening)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("escape")
            await pilot.pause()
        url = listening.url
    try:
        httpx.post(url, json={}, timeout=2)
    except httpx.ConnectError:
        return
    raise AssertionError("the receiver still answers after listen ended")


def _numbers(lines: list[str]) -> list[int | None]:
    """The delivery number each screen line shows in the ``#`` column (None: not a row)."""
    numbers: list[int | None] = []
    for text in lines:
        cell = text[10:15].strip()
        numbers.append(int(cell) if text[1:9].count(":") == 2 and cell.isdigit() else None)
    return numbers


def _assert_cursor_in_view(app: ListenApp) -> None:
    view = app.deliveries.delivery_list
    assert view.highlighted is not None
    assert view.highlighted.number in _numbers(_screen_text(app).splitlines())


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_the_newest_delivery_shows_after_a_burst_and_after_each_arrival(
    size: tuple[int, int],
) -> None:
    target = Recorder()
    async with serve_on_loopback(target.app()) as target_url:
        options = ListenOptions(forward_to=f"{target_url}/{'long-path-' * 12}")
        async with Listening(options) as listening:
            app = ListenApp(listening)
            async with app.run_test(size=size) as pilot:
                view = app.deliveries.delivery_list

                async def send(count: int) -> None:
                    total = listening.receiver.count + count
                    async with httpx.AsyncClient(trust_env=False) as client:
                        await asyncio.gather(
                            *(
                                client.post(listening.url, json={"type": "burst"})
                                for _ in range(count)
                            )
                        )
                    await _wait_for_count(pilot, app, total)
                    await pilot.pause(2 * REFRESH_SECONDS)

                def above_footer() -> int | None:
                    return _numbers(_screen_text(app).splitlines())[-2]

                await send(50)
                # The newest is on the last line of the list, right above the footer.
                assert above_footer() == 50 and view.highlighted.number == 50
                for newest in range(51, 54):  # one at a time, as a slow sender would
                    await send(1)
                    assert above_footer() == newest
                # Lines fit beside the vertical scrollbar: no horizontal one, no cut relay.
                assert not view.show_horizontal_scrollbar
                line = _screen_text(app).splitlines()[-2]
                assert line[: view.scrollable_content_region.right].rstrip().endswith("…")
                await pilot.press("g")
                _assert_cursor_in_view(app)
                await pilot.press("pagedown")
                _assert_cursor_in_view(app)
                for _ in range(2):
                    await pilot.press("j")
                    _assert_cursor_in_view(app)
                await pilot.press("G")
                assert above_footer() == 53
                # Back on the last, the view follows arrivals again.
                await send(1)
                assert above_footer() == 54


async def test_the_cursor_stays_in_view_when_the_terminal_shrinks() -> None:
    async with Listening(ListenOptions()) as listening:
        app = ListenApp(listening)
        async with app.run_test(size=(80, 40)) as pilot:
            async with httpx.AsyncClient(trust_env=False) as client:
                for _ in range(30):
                    await client.post(listening.url, json={"type": "item.sold"})
            await _wait_for_count(pilot, app, 30)
            await pilot.pause(2 * REFRESH_SECONDS)
            _assert_cursor_in_view(app)
            await pilot.resize_terminal(80, 20)
            for _ in range(250):  # the list scrolls after the new size is laid out
                await pilot.pause(0.02)
                view = app.deliveries.delivery_list
                if view.highlighted and view.highlighted.number in _numbers(
                    _screen_text(app).splitlines()
                ):
                    break
            _assert_cursor_in_view(app)


async def test_r_on_a_delivery_cut_short_or_over_the_limit_says_why_and_sends_nothing() -> None:
    target = Recorder()
    async with serve_on_loopback(target.app()) as target_url:
        options = ListenOptions(forward_to=target_url, secret=SECRET, max_body=1000)
        async with Listening(options) as listening:
            app = ListenApp(listening)
            async with app.run_test(size=(120, 40)) as pilot:
                body = json.dumps({"type": "item.sold", "data": {"pad": "x" * 100}}).encode()
                headers = standard_headers(SECRET, "msg_cut", int(time.time()), body)
                head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
                host, port = listening.url.removeprefix("http://").split(":")
                _, writer = await asyncio.open_connection(host, int(port))
                writer.write(
                    f"POST / HTTP/1.1\r\nHost: x\r\n{head}Content-Length: {len(body)}\r\n\r\n".encode()
                    + body[:30]
                )
                await writer.drain()
                writer.close()  # the sender goes away mid-body
                await _wait_for_count(pilot, app, 1)
                async with httpx.AsyncClient(trust_env=False) as client:
                    answer = await client.post(listening.url, content=b"x" * 5000)
                assert answer.status_code == 413
                await _wait_for_count(pilot, app, 2)
                await pilot.press("r")  # the one over the limit
                await pilot.press("k", "r")  # the one cut short
                await pilot.pause(0.3)
                said = [str(n.message) for n in app._notifications]
                assert said == [
                    "#2 not replayed: body over the 1,000 byte limit, not kept",
                    "#1 not replayed: cut short, only 30 bytes came",
                ]
                assert target.received == []
                assert not any(d.replays for d in listening.receiver.deliveries)
                await pilot.press("c", "j", "c")  # the copies say what they hold
                said = [str(n.message) for n in app._notifications][2:]
                assert said == [
                    "Copied the body of #1 (30 bytes): it did not arrive whole",
                    "Copied the body of #2 (0 bytes): none was kept",
                ]


async def _one_delivery_shown(pilot, app: ListenApp, event_type: str) -> None:
    async with httpx.AsyncClient(trust_env=False) as client:
        await client.post(app.listening.url, json={"type": event_type})
    await _wait_for_count(pilot, app, 1)
    await pilot.pause(2 * REFRESH_SECONDS)


async def test_r_is_offered_only_where_a_delivery_has_somewhere_to_go() -> None:
    async with Listening(ListenOptions()) as listening:  # no --forward-to, no --route
        app = ListenApp(listening)
        async with app.run_test(size=(80, 24)) as pilot:
            await _one_delivery_shown(pilot, app, "item.sold")
            text = _screen_text(app)
            assert "1 received — enter opens one" in text
            assert "replay" not in text.lower()
            await pilot.press("r", "question_mark")
            await pilot.pause(0.2)
            [keys] = [str(n.message) for n in app._notifications]
            assert keys == (
                "enter open · s secret · c copy body · y copy json · j/k/g/G move"
                " · in a delivery: / search, n/N matches · esc or q back, ctrl+c quit"
            )
            assert not listening.receiver.deliveries[0].replays
    options = ListenOptions(routes={"item.sold": "http://127.0.0.1:9/sold"})
    async with Listening(options) as listening:  # a route only: r acts, and says what it lacks
        app = ListenApp(listening)
        async with app.run_test(size=(120, 40)) as pilot:
            await _one_delivery_shown(pilot, app, "item.created")
            assert "1 received — enter opens one, r replays it" in _screen_text(app)
            await pilot.press("r")
            await pilot.pause(0.2)
            assert [str(n.message) for n in app._notifications] == [
                "#1 not replayed: no --route for item.created and no --forward-to:"
                " quit and start listen with one"
            ]


def test_every_size_fits_its_column_to_three_digits() -> None:
    """A 1,040,000-byte body showed as "1,016 …": "1,016 KB" is 8 characters, the column 7."""
    sizes = {0, 1, 999, 1000, 1023, 1024}
    for power in range(1, 7):
        for edge in (9.995, 99.95, 999.5, 1000, 1024):
            middle = int(edge * 1024**power)
            sizes |= {middle - 1, middle, middle + 1}
    sizes |= {1_040_000, 1024**3 + 65_536, 2**63 - 1}  # past the largest --max-body
    for size in sorted(sizes):
        text = size_cell(size)
        assert len(text) <= SIZE_WIDTH, (size, text)
        number, unit = text.split(" ")
        scale = 1 if unit == "B" else 1024 ** (1 + ["KB", "MB", "GB", "TB", "PB", "EB"].index(unit))
        assert abs(float(number) * scale - size) <= 0.006 * size, (size, text)
    assert size_cell(1_040_000) == "0.99 MB" and size_cell(10_240) == "10.0 KB"


def test_a_number_column_grows_to_its_largest_number() -> None:
    widths = column_widths(80, 1_234_567)
    assert widths[1] == 7 and sum(widths) + len(widths) + 1 <= 80
    assert column_widths(80, 99_999) == column_widths(80)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_big_deliveries_and_high_numbers_show_whole(size: tuple[int, int]) -> None:
    async with Listening(ListenOptions()) as listening:
        listening.receiver.count = 123_455  # a listen that ran a long time
        app = ListenApp(listening)
        async with app.run_test(size=size) as pilot:
            async with httpx.AsyncClient(trust_env=False) as client:
                await client.post(listening.url, content=b"x" * 1_040_000)
                await client.post(listening.url, content=b"x" * 12_345)
            await _wait_for_count(pilot, app, 2)
            await pilot.pause(2 * REFRESH_SECONDS)
            rows = [line for line in _screen_text(app).splitlines() if " 12345" in line]
            assert len(rows) == 2, _screen_text(app)
            assert " 123456 " in rows[0] and " 0.99 MB " in rows[0]
            assert " 123457 " in rows[1] and " 12.1 KB " in rows[1]


async def test_a_body_over_the_limit_is_said_not_kept_not_shown_empty() -> None:
    """The detail view showed "" as the body, as if an empty one had come."""

    async def chunks():  # no Content-Length: how large it was is not known
        for _ in range(40):
            yield b"y" * 26_000

    async with Listening(ListenOptions(max_body=1_000_000)) as listening:
        app = ListenApp(listening)
        async with app.run_test(size=(120, 40)) as pilot:
            async with httpx.AsyncClient(trust_env=False) as client:
                answer = await client.post(listening.url, content=b"x" * 1_040_000)
                assert answer.status_code == 413
                await client.post(listening.url, content=chunks())
            await _wait_for_count(pilot, app, 2)
            await pilot.press("k", "enter")
            assert isinstance(app.screen, DetailScreen)
            said = "1,040,000 bytes (its Content-Length), over the 1,000,000-byte limit"
            assert dict(app.screen._fields)["Size"] == said
            text = _screen_text(app)
            assert f"The body was not kept: {said}" in text and '""' not in text
            await pilot.press("y")
            assert any("Nothing to copy" in str(n.message) for n in app._notifications)
            await pilot.press("escape", "j", "enter")
            text = " ".join(_screen_text(app).split())
            assert "The body was not kept: at least 1,0" in text
            assert "over the 1,000,000-byte limit" in text and '""' not in text


async def test_a_utf8_header_shows_as_sent_and_one_that_is_not_says_so() -> None:
    async with Listening(ListenOptions()) as listening:
        app = ListenApp(listening)
        async with app.run_test(size=(120, 40)) as pilot:
            headers = [(b"x-event-type", "café.sold".encode()), (b"x-note", b"caf\xe9")]
            async with httpx.AsyncClient(trust_env=False) as client:
                await client.post(listening.url, content=b"{}", headers=headers)
            await _wait_for_count(pilot, app, 1)
            await pilot.pause(2 * REFRESH_SECONDS)
            assert "café.sold" in _screen_text(app) and "Ã" not in _screen_text(app)
            await pilot.press("enter")
            fields = dict(app.screen._fields)
            assert fields["x-event-type"] == "café.sold"
            assert fields["x-note"] == "café  (not UTF-8: read as Latin-1)"
