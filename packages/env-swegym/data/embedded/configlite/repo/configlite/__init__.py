"""Settings and command-line flags."""
