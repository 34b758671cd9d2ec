"""python3 -m daterange.cli FILE: prints every 'name range' line of FILE with its length in days, then the total."""

import sys

from .ranges import format_range, length, parse_range


def report(lines):
    total = 0
    for line in lines:
        if line.strip():
            name, text = line.split(None, 1)
            span = parse_range(text)
            total += length(span)
            yield f"{name} {format_range(span)} {length(span)}"
    yield f"total {total}"


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    with open(args[0], encoding="utf-8") as handle:
        for output in report(handle):
            print(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
