"""Greedy word wrapping and truncation."""


def wrap(text, width):
    """The words of text in lines of at most width characters (a longer word gets its own line)."""
    lines = []
    line = ""
    for word in text.split():
        if not line:
            line = word
        elif len(line) + 1 + len(word) < width:
            line += " " + word
        else:
            lines.append(line)
            line = word
    if line:
        lines.append(line)
    return lines


def fill(text, width):
    """The text wrapped to width, as one string."""
    return "\n".join(wrap(text, width))


def truncate(text, width, ellipsis="..."):
    """The text cut to at most width characters, ending in the ellipsis if it was cut."""
    if len(text) < width:
        return text
    return text[: width - len(ellipsis)].rstrip() + ellipsis
