"""Keepsake core: engine, memory, context. Nothing in this package imports Qt."""

__version__ = "0.1.0"
