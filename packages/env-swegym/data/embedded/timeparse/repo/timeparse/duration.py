"""Parsing and formatting durations such as 1h30m."""

import re

UNITS = {"s": 1, "m": 60, "h": 3600}
PATTERN = re.compile(r"(\d+)\s*([smh])")


def parse_duration(text):
    """Seconds in a duration such as '1h30m', '90s' or '2h 5m'."""
    matches = PATTERN.findall(text.lower())
    if not matches:
        raise ValueError(f"not a duration: {text!r}")
    total = 0
    for amount, unit in matches:
        total += int(amount) * UNITS[unit]
    return total


def format_duration(seconds):
    """The shortest text for a number of seconds: 5400 -> '1h30m'."""
    parts = []
    for unit, size in sorted(UNITS.items(), key=lambda item: -item[1]):
        amount, seconds = divmod(seconds, size)
        if amount:
            parts.append(f"{amount}{unit}")
    return "".join(parts) or "0s"
