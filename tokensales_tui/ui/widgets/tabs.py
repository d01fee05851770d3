"""The main screen's tabs: Textual's ``TabbedContent``, which follows the focus only to
where the focus still is, and whose tab bar never takes the focus."""

from __future__ import annotations

from textual.widgets import TabbedContent, TabPane
from textual.widgets.tabbed_content import ContentTabs

__all__ = ["FocusFollowingTabs"]


class FocusFollowingTabs(TabbedContent):
    """``TabbedContent`` that shows a pane for a focus that came into it only while the
    focus is still there.

    Textual's shows the pane of each ``TabPane.Focused`` message as it is handled. Two tab
    keys in one read (``45``, typed fast or over SSH) each show their tab and focus its
    table at once, so that the keys after them go there; the two messages are handled
    after both keys, and each showed its pane again, whose table the screen then focused
    again, sending the other message again: the two tabs took turns without end.
    """

    def _on_tab_pane_focused(self, event: TabPane.Focused) -> None:
        focused = self.screen.focused
        if focused is None or event.tab_pane not in focused.ancestors:
            event.stop()
            event.prevent_default()  # the focus has moved on: Textual's handler is skipped

    def on_mount(self) -> None:
        # A click on the bar beside the labels, or on its underline, focused the bar: the
        # table lost the focus and nothing showed where it went (enter and j did nothing).
        # Tabs are chosen with 1-5 and a click on a label, which focuses the tab's table.
        self.query_one(ContentTabs).can_focus = False
