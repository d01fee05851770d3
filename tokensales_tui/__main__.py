"""``python -m tokensales_tui``: the same as the ``tokensales-tui`` command."""

import sys

from .cli import main

sys.exit(main())
