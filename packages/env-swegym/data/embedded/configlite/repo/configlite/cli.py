"""python3 -m configlite.cli --flag=value...: prints the parsed flags, sorted."""

import sys

from .config import parse_flags

BOOLEANS = {"verbose", "dry-run", "color"}


def main(argv=None):
    flags = parse_flags(sys.argv[1:] if argv is None else argv, BOOLEANS)
    for name in sorted(flags):
        print(f"{name}: {flags[name]!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
