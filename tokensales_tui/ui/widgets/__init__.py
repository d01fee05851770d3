"""Reusable widgets: the status header, the secret input and the JSON view."""
