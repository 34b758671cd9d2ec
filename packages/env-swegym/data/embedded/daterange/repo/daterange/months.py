"""Splitting date ranges at month boundaries, e.g. for monthly billing."""

from datetime import date

from .ranges import ONE_DAY, DateRange


def split_by_month(span):
    """The parts of a range that fall in each calendar month, in order."""
    parts = []
    start = span.start
    while start <= span.end:
        month_end = date(start.year, start.month + 1, 1) - ONE_DAY
        parts.append(DateRange(start, min(month_end, span.end)))
        start = month_end + ONE_DAY
    return parts
