"""python3 -m unitconv.cli FILE [UNIT]: every 'name quantity' line of FILE in UNIT, and the total."""

import sys

from .quantity import convert, format_quantity, parse_quantity


def convert_lines(lines, to_unit):
    total = 0
    for line in lines:
        if line.strip():
            name, quantity = line.split(None, 1)
            amount = convert(*parse_quantity(quantity), to_unit)
            total += amount
            yield f"{name} {format_quantity(amount, to_unit)}"
    yield f"total {format_quantity(total, to_unit)}"


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    to_unit = args[1] if len(args) > 1 else "kg"
    with open(args[0], encoding="utf-8") as handle:
        for output in convert_lines(handle, to_unit):
            print(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
