"""Turning titles into URL slugs and file names."""

import re
import unicodedata


def strip_accents(text):
    """'Crème brûlée' -> 'Creme brulee'."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def initials(name):
    """'Émile Zola' -> 'EZ'."""
    return "".join(part[0] for part in strip_accents(name).split()).upper()


def slugify(title):
    """A URL slug: the title's words in lower case, joined by hyphens."""
    text = title.lower()
    text = re.sub(r"[^a-z0-9]+", "-", text)
    return text.strip("-")


def filename(title, extension):
    """A safe file name for a title, with the extension."""
    stem = re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")
    return f"{stem or 'untitled'}.{extension}"
