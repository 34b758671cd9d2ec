"""python3 -m slugkit.cli TITLE... prints the slug of each title."""

import sys

from .slug import slugify


def main(argv=None):
    for title in sys.argv[1:] if argv is None else argv:
        print(slugify(title))
    return 0


if __name__ == "__main__":
    sys.exit(main())
