"""The resource table: its model (cells, index, filter, sort) and the widget that draws it.

Import the widget from :mod:`.widget`; the model modules import neither Textual nor Rich.
"""
