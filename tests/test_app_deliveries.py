"""The main app's deliveries: the demo's own webhook (v), listening for a webhook (l)."""

from __future__ import annotations

import httpx

from tokensales_tui.config import Overrides
from tokensales_tui.session import Launch
from tokensales_tui.ui.app import TokenSalesApp
from tokensales_tui.ui.screens.deliveries import DeliveriesScreen
from tokensales_tui.ui.webhook_views import DEMO_HOOK_URL

from .apphelpers import loaded, screen_text, wait_for


async def test_the_demo_shows_the_events_its_changes_raise() -> None:
    app = TokenSalesApp(Launch(demo=True))
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(app, pilot)
        await pilot.press("v")
        await wait_for(lambda: isinstance(app.screen, DeliveriesScreen), pilot)
        await wait_for(lambda: "webhook.created" in screen_text(app), pilot)
        assert "valid · Standard Webhooks" in screen_text(app)
        hooks = [w for w in app.emulator.webhooks.values() if w["url"] == DEMO_HOOK_URL]
        assert len(hooks) == 1 and hooks[0]["events"] == ["*"]
        await pilot.press("escape")
        item_id = next(iter(app.emulator.items))
        await app.api.call(lambda client: client.delete_item(item_id))
        await pilot.press("v")
        await wait_for(lambda: "item.deleted" in screen_text(app), pilot)
        # The webhook is created once per session, not on every visit.
        assert len([w for w in app.emulator.webhooks.values() if w["url"] == DEMO_HOOK_URL]) == 1
        receiver = app.screen.source
        assert [d.event_type for d in receiver.deliveries] == ["webhook.created", "item.deleted"]
        assert all(d.verdict.ok for d in receiver.deliveries)


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
