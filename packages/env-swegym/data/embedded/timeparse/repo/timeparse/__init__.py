"""Durations such as 1h30m."""
