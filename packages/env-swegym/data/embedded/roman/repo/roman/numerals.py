"""Conversion between integers and Roman numerals."""

VALUES = [(1000, "M"), (500, "D"), (100, "C"), (50, "L"), (10, "X"), (5, "V"), (1, "I")]

LETTER_VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def to_roman(number):
    """The Roman numeral of a number from 1 to 3999."""
    if not 0 < number < 4000:
        raise ValueError(f"{number} is out of range (1-3999)")
    parts = []
    for value, letters in VALUES:
        while number >= value:
            parts.append(letters)
            number -= value
    return "".join(parts)


def from_roman(text):
    """The number a Roman numeral stands for (upper or lower case)."""
    total = 0
    for char in text.upper():
        total += LETTER_VALUES[char]
    return total
