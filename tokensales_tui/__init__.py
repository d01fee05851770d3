"""tokensales-tui: a terminal client for the Token Sales Management Service."""

__version__ = "0.1.0"
