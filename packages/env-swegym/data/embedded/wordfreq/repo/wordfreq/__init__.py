"""Word counts for plain text."""
