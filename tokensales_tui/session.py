"""What a session is — one profile, or the demo — and how one is built.

The terminal app starts a session at launch and a new one on every profile switch;
the scripting commands build one the same way. Nothing here imports Textual.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import config
from .api import Connection, Secret

if TYPE_CHECKING:
    import httpx

    from .fence import Fence

DEMO_URL = "http://demo.tokensales.invalid"
"""Address of the in-process demo service; requests never leave the process."""


def demo_connection() -> Connection:
    """The addresses and credentials of the in-process demo service."""
    from .emulator import DEMO_API_KEY, DEMO_API_SECRET

    return Connection(
        base_url=DEMO_URL,
        auth_url=DEMO_URL,
        console_url=DEMO_URL,
        api_key=Secret(DEMO_API_KEY),
        api_secret=Secret(DEMO_API_SECRET),
        profile="demo",
    )


@dataclass
class Launch:
    """How the app was started: flags, environment, demo or not."""

    overrides: config.Overrides = field(default_factory=config.Overrides)
    env: Mapping[str, str] = field(default_factory=dict)
    demo: bool = False
    log_file: str | None = None
    mask: bool = False
    """Start with mask mode on (``--mask``)."""
    demo_items: int = 40
    demo_seed: int = 0
    transport_factory: Callable[[], httpx.AsyncBaseTransport | None] | None = None
    """Transport for real profiles; tests point it at the in-process emulator."""
    config_path: Path | None = None
    served: bool = False
    """Served to a web browser (``serve``): whoever has the page uses this profile, and
    nothing more of the serving machine: no other profile, no profile form (its "Test
    connection" would send the stored credentials to an address typed in the browser),
    no write to its config file or its folders."""
    fence: Callable[[Fence], None] | None = None
    """How a served app puts itself behind its fence once its config is read
    (:func:`~tokensales_tui.fence.fence_in`, for the process's life); None: it does not
    (an app run in a test's own process, which records the fence instead)."""


@dataclass(frozen=True)
class Session:
    """The active profile and everything the UI needs to know about it."""

    name: str
    connection: Connection
    read_only: bool
    label: str | None = None
    demo: bool = False
    transport: httpx.AsyncBaseTransport | None = field(default=None, compare=False, repr=False)
    """How requests travel: None for the network, the in-process emulator for the demo."""
    emulator: Any = field(default=None, compare=False, repr=False)
    """The demo's emulator state (tests switch its faults); None for a real profile."""
    overridden: tuple[str, ...] = ()
    """The variables and flags that override settings of the profile in the file."""
    mask: bool = False
    """The profile asks for mask mode (``mask = true``)."""

    @property
    def host(self) -> str:
        """Where the session's requests go, as the header names it."""
        return "in-process demo service" if self.demo else self.connection.host


def demo_session(launch: Launch) -> Session:
    """A session on a fresh in-process emulator, seeded as ``launch`` asks."""
    import httpx

    from .emulator import create_app

    emulator_app = create_app(seed=launch.demo_seed, items=launch.demo_items)
    if launch.served:  # its deliveries never reach the serving machine's own services
        emulator_app.state.emulator.deliveries.to_this_machine = False
    return Session(
        "demo",
        demo_connection(),
        read_only=bool(launch.overrides.read_only),
        label="DEMO",
        demo=True,
        transport=httpx.ASGITransport(app=emulator_app),
        emulator=emulator_app.state.emulator,
    )


def profile_session(profile: config.ResolvedProfile, launch: Launch) -> Session:
    """A session on a configured profile."""
    transport = launch.transport_factory() if launch.transport_factory else None
    return Session(
        profile.name,
        profile.connection(),
        profile.read_only,
        profile.label,
        transport=transport,
        overridden=profile.overridden,
        mask=profile.mask,
    )
