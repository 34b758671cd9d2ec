"""Date ranges such as 2024-01-01..2024-01-31."""
