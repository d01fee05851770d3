"""An embedded emulator of the Token Sales Management Service, for the demo and tests.

One Starlette app serves the paths of all three addresses (``/v1/...``, the token
endpoint and the collections endpoints), keeps its state for its own lifetime and can
inject named faults. Use it in-process::

    app = create_app(seed=0)
    client = new_client(transport=httpx.ASGITransport(app=app), base_url="http://emulator")

(``new_client`` from :mod:`tokensales_tui.http_clients`, as every client of the product.)

or on a socket with :func:`tokensales_tui.emulator.server.serve`. Response shapes chosen
where the interface is silent are listed in :mod:`tokensales_tui.emulator.app`.
"""

from __future__ import annotations

from .app import create_app
from .faults import FAULTS
from .state import DEMO_API_KEY, DEMO_API_SECRET, Emulator

__all__ = ["DEMO_API_KEY", "DEMO_API_SECRET", "FAULTS", "Emulator", "create_app"]
