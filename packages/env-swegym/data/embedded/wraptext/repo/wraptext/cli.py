"""python3 -m wraptext.cli FILE [WIDTH]: prints the paragraphs of FILE wrapped to WIDTH."""

import sys

from .paragraphs import paragraphs
from .wrap import fill

DEFAULT_WIDTH = 72


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    width = int(args[1]) if len(args) > 1 else DEFAULT_WIDTH
    if args[0] == "-":
        text = sys.stdin.read()
    else:
        with open(args[0], encoding="utf-8") as handle:
            text = handle.read()
    print("\n\n".join(fill(paragraph, width) for paragraph in paragraphs(text)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
