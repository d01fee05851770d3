"""Reusable widgets: the status header, the footer of keys, the secret input and the JSON view."""
