"""Splitting text into words and counting them."""

from collections import Counter

PUNCTUATION = ".,;:!?\"'()"


def words(text):
    """The words of a text, in lower case."""
    return [word.lower() for word in text.split(" ") if word]


def top_words(text, n=3):
    """The n most common words and their counts, punctuation stripped."""
    counts = Counter(word.strip(PUNCTUATION).lower() for word in text.split(" ") if word)
    counts.pop("", None)
    return counts.most_common(n)
