"""An app served to a browser (``serve``): its fence, and its end with its server.

Its fence (:func:`served_fence`) lets it reach its profile's addresses and nothing else
of the serving machine but what the interpreter and this package are made of.

It ends with its server.

Such an app runs Textual's web driver, which reads the server's packets (keys, resizes,
the request to quit) on stdin. At the end of that input (the server killed, crashed or
gone by ``SIGHUP``: its end of the pipe closed) the driver's input thread just returned,
and the app ran on forever, an orphan drawing for no one. :func:`ending_with_input`
makes the app quit then, as when the server asks it to.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import platformdirs

from .. import config
from ..fence import Fence

if TYPE_CHECKING:
    from ..api import Connection

__all__ = ["ending_with_input", "is_served", "served_fence"]

DriverT = TypeVar("DriverT")


def is_served(app: object) -> bool:
    """Whether ``app`` is served to a browser (``Launch.served``): a screen's check."""
    return bool(getattr(getattr(app, "launch", None), "served", False))


def ending_with_input(driver_class: type[DriverT]) -> type[DriverT]:
    """A subclass of the web driver ``driver_class`` whose app quits once its input ends.

    A quit the app began itself stops the input first (``exit_event``): nothing more is
    asked of it then.
    """
    from textual import messages

    def run_input_thread(self: Any) -> None:
        try:
            driver_class.run_input_thread(self)  # type: ignore[attr-defined]
        finally:
            if not self.exit_event.is_set():
                self._app.post_message(messages.ExitApp())  # safe from another thread

    ending = type(
        f"Ending{driver_class.__name__}", (driver_class,), {"run_input_thread": run_input_thread}
    )
    ending.__module__ = __name__
    return ending


def served_fence(connection: Connection | None, config_path: Path | None) -> Fence:
    """The fence of a served app (:mod:`tokensales_tui.fence`) on ``connection``'s
    addresses; None: it reaches none (the demo, served in the process, or no profile)."""
    from .index_process import command

    addresses = []
    if connection is not None:
        addresses = [connection.base_url, connection.auth_url, connection.console_url]
        addresses += [connection.proxy] if connection.proxy else []
    return Fence(
        addresses=addresses,
        programs=[command()],
        private=[
            *config.own_folders(config_path),
            platformdirs.user_state_path(config.APP_NAME),
        ],
    )
