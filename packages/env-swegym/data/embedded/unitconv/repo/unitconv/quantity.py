"""Parsing, converting and formatting quantities such as '250g' or '3 km'."""

import re

from .units import UNITS, lookup


def parse_quantity(text):
    """(amount, unit) of a quantity such as '250g' or '3 km'; the unit in lower case."""
    match = re.fullmatch(r"(\d+)\s*([a-z]+)", text.strip().lower())
    if not match or match.group(2) not in UNITS:
        raise ValueError(f"not a quantity: {text!r}")
    return int(match.group(1)), match.group(2)


def convert(amount, unit, to_unit):
    """The amount of `unit` expressed in `to_unit` (both lengths or both weights)."""
    kind, size = lookup(unit)
    to_kind, to_size = lookup(to_unit)
    if kind != to_kind:
        raise ValueError(f"cannot convert {unit} ({kind}) to {to_unit} ({to_kind})")
    return amount * size // to_size


def format_quantity(amount, unit):
    """'1.5 kg': the amount with at most three decimals and no trailing zeros."""
    text = f"{amount:.3f}".rstrip("0").rstrip(".")
    return f"{text} {unit}"
