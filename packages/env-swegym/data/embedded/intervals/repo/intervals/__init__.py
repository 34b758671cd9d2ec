"""Closed intervals."""
