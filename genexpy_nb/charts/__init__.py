"""Altair chart builders: pure functions from tidy polars frames to charts."""
