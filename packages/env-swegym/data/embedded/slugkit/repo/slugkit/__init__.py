"""Slugs and file names from titles."""

from .slug import filename, initials, slugify, strip_accents

__all__ = ["filename", "initials", "slugify", "strip_accents"]
