"""Splitting text into paragraphs."""


def paragraphs(text):
    """The paragraphs of text (separated by blank lines), each joined into one line."""
    result = []
    current = []
    for line in text.splitlines():
        if line.strip():
            current.append(line.strip())
        elif current:
            result.append(" ".join(current))
            current = []
    if current:
        result.append(" ".join(current))
    return result
