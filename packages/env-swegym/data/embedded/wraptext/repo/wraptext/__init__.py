"""Word wrapping for plain text."""

from .paragraphs import paragraphs
from .wrap import fill, truncate, wrap

__all__ = ["fill", "paragraphs", "truncate", "wrap"]
