"""Reusable widgets of the interface."""

from .resource_table import Column, ResourceTable, numeric_sort_key

__all__ = ["Column", "ResourceTable", "numeric_sort_key"]
