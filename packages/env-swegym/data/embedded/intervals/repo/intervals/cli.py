"""python3 -m intervals.cli START-END...: prints the merged intervals."""

import sys

from .merge import merge


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    pairs = [tuple(int(part) for part in arg.split("-")) for arg in args]
    print(" ".join(f"{start}-{end}" for start, end in merge(pairs)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
