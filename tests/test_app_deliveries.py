"""The main app's deliveries: the demo's own webhook (v), listening for a webhook (l)."""

from __future__ import annotations

from typing import Any

import httpx

from tokensales_tui.api.models import WebhookUpdate
from tokensales_tui.config import Overrides
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.screens.deliveries import DeliveriesScreen
from tokensales_tui.ui.webhook_views import DEMO_HOOK_URL

from .apphelpers import loaded, screen_text, wait_for


def _demo_hooks(app: TokenSalesApp) -> list[dict]:
    return [w for w in app.emulator.webhooks.values() if w["url"] == DEMO_HOOK_URL]


async def _press_v(app: TokenSalesApp, pilot: Any) -> None:
    await pilot.press("v")
    await wait_for(lambda: isinstance(app.screen, DeliveriesScreen), pilot)


async def _delete_an_item(app: TokenSalesApp, pilot: Any) -> None:
    """Back to the tabs, delete an item (its event goes to the demo's webhook)."""
    await pilot.press("escape")
    item_id = next(iter(app.emulator.items))
    await app.api.call(lambda client: client.delete_item(item_id))


async def test_the_demo_shows_the_events_its_changes_raise() -> None:
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        await _press_v(app, pilot)
        await wait_for(lambda: "webhook.created" in screen_text(app), pilot)
        assert "valid · Standard Webhooks" in screen_text(app)
        hooks = _demo_hooks(app)
        assert len(hooks) == 1 and hooks[0]["events"] == ["*"]
        await _delete_an_item(app, pilot)
        await pilot.press("v")
        await wait_for(lambda: "item.deleted" in screen_text(app), pilot)
        # The webhook is created once per session, not on every visit.
        assert len(_demo_hooks(app)) == 1
        receiver = app.screen.source
        assert [d.event_type for d in receiver.deliveries] == ["webhook.created", "item.deleted"]
        assert all(d.verdict.ok for d in receiver.deliveries)


async def test_v_creates_the_demo_webhook_again_once_it_was_deleted() -> None:
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        await _press_v(app, pilot)
        await pilot.press("escape")
        [hook] = _demo_hooks(app)
        await app.api.call(lambda client: client.delete_webhook(hook["id"]))
        assert not _demo_hooks(app)
        await _press_v(app, pilot)
        [again] = _demo_hooks(app)
        assert again["id"] != hook["id"] and again["events"] == ["*"]
        assert any("was gone: created it again" in str(n.message) for n in app._notifications)
        await _delete_an_item(app, pilot)
        await pilot.press("v")
        # Its events arrive again; the second "webhook.created" is its own.
        await wait_for(lambda: "item.deleted" in screen_text(app), pilot)
        events = [d.event_type for d in app.screen.source.deliveries]
        assert events[-2:] == ["webhook.created", "item.deleted"]
        assert len(_demo_hooks(app)) == 1


async def test_v_names_the_events_of_a_demo_webhook_that_was_edited() -> None:
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        await _press_v(app, pilot)
        assert "receives every event (*)" in screen_text(app)
        await pilot.press("escape")
        [hook] = _demo_hooks(app)
        edit = WebhookUpdate(events=["item.sold"])
        await app.api.call(lambda client: client.update_webhook(hook["id"], edit))
        await _press_v(app, pilot)
        assert "receives only item.sold, signed" in screen_text(app)
        assert _demo_hooks(app) == [hook]
        await pilot.press("escape")
        # Events a server named with newlines, endlessly: the heading keeps its lines.
        edit = WebhookUpdate(events=["a\nb" * 2000, "item.sold"])
        await app.api.call(lambda client: client.update_webhook(hook["id"], edit))
        await _press_v(app, pilot)
        heading = str(app.screen.query_one("#deliveries-heading").render())
        assert len(heading.splitlines()) == 2
        assert max(map(len, heading.splitlines())) <= 1000


async def test_a_read_only_demo_creates_no_webhook() -> None:
    app = TokenSalesApp(Launch(demo=True, overrides=Overrides(read_only=True)))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        count = len(app.emulator.webhooks)
        await pilot.press("v")
        await pilot.pause(0.2)
        assert not isinstance(app.screen, DeliveriesScreen)
        assert len(app.emulator.webhooks) == count


async def test_l_listens_for_the_highlighted_webhook_and_stops_with_the_view() -> None:
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot, "webhooks")
        webhook = app.active_tab.highlighted
        await pilot.press("l")
        await wait_for(lambda: isinstance(app.screen, DeliveriesScreen), pilot)
        text = screen_text(app)
        assert "listen --register PUBLIC_URL --events" in text
        assert ", ".join(webhook.events) in text
        url = next(w for w in text.split() if w.startswith("http://127.0.0.1:"))
        async with httpx.AsyncClient(trust_env=False) as client:
            assert (await client.post(url, json={"type": "item.sold"})).status_code == 200
        await wait_for(lambda: "item.sold" in screen_text(app), pilot)
        await pilot.press("escape")
        await wait_for(lambda: not isinstance(app.screen, DeliveriesScreen), pilot)
        await pilot.pause(0.5)
        async with httpx.AsyncClient(trust_env=False) as client:
            try:
                await client.post(url, json={}, timeout=2)
            except httpx.ConnectError:
                pass
            else:
                raise AssertionError("the receiver still answers after its view closed")
