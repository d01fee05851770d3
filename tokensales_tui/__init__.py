"""tokensales-tui: a terminal client for the Token Sales Management Service."""

import logging

__version__ = "0.1.0"

# What the app logs goes to the --log file only (debug_log.py): without one, Python's
# last resort would write its warnings to stderr, over the app's screen or into a
# command's messages.
logging.getLogger(__name__).addHandler(logging.NullHandler())
