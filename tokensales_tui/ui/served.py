"""An app served to a browser (``serve``) ends with its server.

Such an app runs Textual's web driver, which reads the server's packets (keys, resizes,
the request to quit) on stdin. At the end of that input (the server killed, crashed or
gone by ``SIGHUP``: its end of the pipe closed) the driver's input thread just returned,
and the app ran on forever, an orphan drawing for no one. :func:`ending_with_input`
makes the app quit then, as when the server asks it to.
"""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = ["ending_with_input", "is_served"]

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
