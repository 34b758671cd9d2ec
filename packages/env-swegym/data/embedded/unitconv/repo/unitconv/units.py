"""The known units: each unit's kind and its size in the kind's smallest unit (mm or g)."""

UNITS = {
    "mm": ("length", 1),
    "cm": ("length", 10),
    "m": ("length", 1000),
    "km": ("length", 1000000),
    "g": ("weight", 1),
    "kg": ("weight", 1000),
    "t": ("weight", 1000000),
}


def lookup(unit):
    """(kind, size) of a unit; ValueError for an unknown one."""
    try:
        return UNITS[unit]
    except KeyError:
        raise ValueError(f"unknown unit: {unit!r}") from None
