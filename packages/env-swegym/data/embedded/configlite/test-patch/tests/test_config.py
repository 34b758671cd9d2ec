import contextlib
import io
import unittest

from configlite.cli import main
from configlite.config import Config, parse_flags


class GetBoolTest(unittest.TestCase):
    def test_true_and_false(self):
        config = Config({"a": "true", "b": "False", "c": "no"})
        self.assertIs(config.get_bool("a"), True)
        self.assertIs(config.get_bool("b"), False)
        self.assertIs(config.get_bool("c"), False)

    def test_accepts_yes_on_and_1(self):
        config = Config({"a": "yes", "b": "ON", "c": "1", "d": " True ", "e": "off"})
        self.assertEqual([config.get_bool(key) for key in "abcde"], [True, True, True, True, False])

    def test_default(self):
        self.assertIs(Config({}).get_bool("missing", default=True), True)


class ParseFlagsTest(unittest.TestCase):
    def test_bare_flag(self):
        self.assertEqual(parse_flags(["--force"]), {"force": True})

    def test_string_flag(self):
        self.assertEqual(parse_flags(["--name=a=b"]), {"name": "a=b"})

    def test_accepts_yes_on_and_1(self):
        flags = parse_flags(["--a=yes", "--b=On", "--c=1", "--d=0"], booleans={"a", "b", "c", "d"})
        self.assertEqual(flags, {"a": True, "b": True, "c": True, "d": False})


class CliTest(unittest.TestCase):
    def test_prints_flags(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main(["--verbose=true", "--name=demo", "--color=false"])
        self.assertEqual(out.getvalue(), "color: False\nname: 'demo'\nverbose: True\n")


if __name__ == "__main__":
    unittest.main()
