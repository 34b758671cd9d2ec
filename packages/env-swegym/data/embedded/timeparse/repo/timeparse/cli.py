"""python3 -m timeparse.cli FILE: prints the total of the durations in FILE ('name duration' lines)."""

import sys

from .duration import format_duration, parse_duration


def total_of(lines):
    total = 0
    for line in lines:
        if line.strip():
            _name, duration = line.split(None, 1)
            total += parse_duration(duration)
    return total


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    with open(args[0], encoding="utf-8") as handle:
        print(format_duration(total_of(handle)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
