"""Lengths and weights with unit suffixes."""
