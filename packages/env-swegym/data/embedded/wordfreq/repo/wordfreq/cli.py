"""python3 -m wordfreq.cli FILE [N]: prints the N most common words of FILE."""

import sys

from .count import top_words


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    with open(args[0], encoding="utf-8") as handle:
        text = handle.read()
    for word, count in top_words(text, int(args[1]) if len(args) > 1 else 3):
        print(f"{count} {word}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
