"""Unions of closed intervals [start, end]."""


def merge(intervals):
    """The union of closed intervals, as sorted lists [start, end] that do not overlap."""
    result = []
    for start, end in sorted(intervals):
        if start > end:
            raise ValueError(f"interval [{start}, {end}] ends before it starts")
        if result and start < result[-1][1]:
            result[-1][1] = max(result[-1][1], end)
        else:
            result.append([start, end])
    return result


def total_length(intervals):
    """The length of the union of the intervals."""
    return sum(end - start for start, end in merge(intervals))
