"""Inclusive date ranges: 2024-01-01..2024-01-31, or a whole month written 2024-01."""

import re
from collections import namedtuple
from datetime import date, timedelta

ONE_DAY = timedelta(days=1)
MONTH = re.compile(r"^(\d{4})-(\d{2})$")

DateRange = namedtuple("DateRange", "start end")


def parse_range(text):
    """A DateRange from 'START..END' (both ends included) or 'YYYY-MM' (the whole month)."""
    text = text.strip()
    month = MONTH.match(text)
    if month:
        year, number = int(month.group(1)), int(month.group(2))
        start = date(year, number, 1)
        end = date(year, number + 1, 1) - ONE_DAY
        return DateRange(start, end)
    start_text, separator, end_text = text.partition("..")
    if not separator:
        raise ValueError(f"not a date range: {text!r}")
    start, end = date.fromisoformat(start_text.strip()), date.fromisoformat(end_text.strip())
    if end < start:
        raise ValueError(f"range ends before it starts: {text!r}")
    return DateRange(start, end)


def format_range(span):
    """'START..END' in ISO dates."""
    return f"{span.start.isoformat()}..{span.end.isoformat()}"


def length(span):
    """The number of days in a range, both ends included."""
    return (span.end - span.start).days + 1


def overlap(a, b):
    """The days two ranges have in common, as a DateRange, or None."""
    start, end = max(a.start, b.start), min(a.end, b.end)
    return DateRange(start, end) if start <= end else None
