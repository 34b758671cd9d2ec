"""python3 -m roman.cli FILE: prints 'number numeral' for every number in FILE."""

import sys

from .numerals import to_roman


def convert_lines(lines):
    for line in lines:
        line = line.strip()
        if line:
            yield f"{line} {to_roman(int(line))}"


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    with open(args[0], encoding="utf-8") as handle:
        for output in convert_lines(handle):
            print(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
