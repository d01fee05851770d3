"""The command palette's entries: every action of the main screen, and the app's own."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from textual.app import SystemCommand

from .forms import NEW_TITLES
from .resources import RESOURCES
from .screens.browse import BrowseScreen

if TYPE_CHECKING:
    from textual.screen import Screen

    from .app import TokenSalesApp


def browse_commands(browse: BrowseScreen) -> Iterator[SystemCommand]:
    """The main screen's actions that apply now (none while another screen is in view)."""
    for resource in RESOURCES:
        yield SystemCommand(
            f"Go to tab: {resource.title}",
            f"Show the {resource.title.lower()} tab",
            lambda key=resource.key: browse.action_show_tab(key),
        )
    if browse.tsapp.session is None:
        return
    yield SystemCommand("Refresh", "Reload the current tab", browse.action_refresh)
    yield SystemCommand("Filter", "Filter the current tab", browse.action_focus_filter)
    yield SystemCommand("Copy id", "Copy the highlighted object's id", browse.action_copy_id)
    yield SystemCommand("Copy JSON", "Copy the highlighted object as JSON", browse.action_copy_json)
    yield SystemCommand("Sort", "Sort by the next column", browse.action_sort)
    yield SystemCommand("Reverse sort", "Reverse the order of the sort", browse.action_reverse_sort)
    yield SystemCommand(
        "Open link", "Open the webhook's URL or the item's image", browse.action_open_link
    )
    yield SystemCommand(
        "Copy link", "Copy the webhook's URL or the item's image address", browse.action_copy_link
    )
    tab = browse.active_tab
    watching = "Stop watching" if tab.watching else "Watch"
    yield SystemCommand(watching, "Reload the current tab every few seconds", browse.action_watch)
    yield SystemCommand("Mark", "Mark or unmark the highlighted row", browse.action_mark)
    yield SystemCommand(
        "Mark all", "Mark every row shown (when all are, clear the marks)", browse.action_mark_all
    )
    yield SystemCommand(
        "Export", "Write the rows as shown to a CSV or JSON file", browse.action_export
    )
    if browse.check_action("go_to", ()):
        yield SystemCommand(
            "Go to payout setting / its items",
            "Items: the item's payout setting; Payouts: the items it pays out",
            browse.action_go_to,
        )
    if browse.check_action("go_to_asset", ()):
        yield SystemCommand(
            "Go to asset", "Items: the asset of the item's chain", browse.action_go_to_asset
        )
    if browse.check_action("listen", ()):
        yield SystemCommand(
            "Listen for the webhook's events",
            "Receive on this machine the deliveries of the highlighted webhook's events",
            browse.action_listen,
        )
    if browse.check_action("deliveries", ()):
        yield SystemCommand(
            "Deliveries",
            "The demo's own webhook: the events delivered as things change",
            browse.action_deliveries,
        )
    if browse.check_action("delete", ()):
        yield SystemCommand("Delete", "Delete the highlighted object", browse.action_delete)
    if browse.check_action("new", ()):
        title = NEW_TITLES[browse.active_tab.resource.key]
        yield SystemCommand(title, "Open the form that creates it", browse.action_new)
    if browse.check_action("edit", ()):
        yield SystemCommand("Edit webhook", "Change the highlighted webhook", browse.action_edit)


def app_commands(app: TokenSalesApp, screen: Screen[Any]) -> Iterator[SystemCommand]:
    """Every command for the palette opened on ``screen``."""
    if isinstance(screen, BrowseScreen):
        yield from browse_commands(screen)
        if not app.launch.served:
            yield SystemCommand(
                "Switch profile", "Use another profile or the demo", app.action_switch_profile
            )
        # Only here: a screen over the main one (a detail, a form) drew its text already.
        yield SystemCommand(
            "Mask mode: " + ("turn off" if app.masked else "turn on"),
            "Show addresses, e-mails, account ids and keys partly hidden (for demos)",
            app.action_toggle_mask,
        )
    yield SystemCommand("Help", "Show every key", app.action_help)
