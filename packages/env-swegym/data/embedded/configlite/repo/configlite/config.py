"""Typed access to string settings, and command-line flags."""


class Config:
    """Settings given as strings (for example os.environ), read as typed values."""

    def __init__(self, values):
        self.values = dict(values)

    def get(self, key, default=None):
        return self.values.get(key, default)

    def get_int(self, key, default=0):
        value = self.values.get(key)
        return default if value is None else int(value)

    def get_bool(self, key, default=False):
        value = self.values.get(key)
        if value is None:
            return default
        return value.lower() == "true"


def parse_flags(argv, booleans=()):
    """--name=value flags as a dict. A bare --name is True; flags named in booleans are parsed as booleans."""
    flags = {}
    for arg in argv:
        if not arg.startswith("--"):
            raise ValueError(f"not a flag: {arg}")
        name, has_value, value = arg[2:].partition("=")
        if not has_value:
            flags[name] = True
        elif name in booleans:
            flags[name] = value.lower() == "true"
        else:
            flags[name] = value
    return flags
