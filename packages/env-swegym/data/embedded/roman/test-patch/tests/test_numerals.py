import contextlib
import io
import os
import unittest

from roman.cli import main
from roman.numerals import from_roman, to_roman

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "years.txt")


class ToRomanTest(unittest.TestCase):
    def test_additive(self):
        self.assertEqual(to_roman(3), "III")
        self.assertEqual(to_roman(2023), "MMXXIII")

    def test_subtractive(self):
        self.assertEqual(to_roman(4), "IV")
        self.assertEqual(to_roman(1994), "MCMXCIV")
        self.assertEqual(to_roman(3999), "MMMCMXCIX")

    def test_out_of_range(self):
        with self.assertRaises(ValueError):
            to_roman(0)


class FromRomanTest(unittest.TestCase):
    def test_additive(self):
        self.assertEqual(from_roman("MDCCCXII"), 1812)

    def test_lower_case(self):
        self.assertEqual(from_roman("mlxvi"), 1066)

    def test_subtractive(self):
        self.assertEqual(from_roman("IV"), 4)
        self.assertEqual(from_roman("MCMXCIV"), 1994)
        self.assertEqual(from_roman("xlix"), 49)


class CliTest(unittest.TestCase):
    def test_converts_the_fixture(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main([FIXTURE])
        self.assertEqual(out.getvalue(), "1066 MLXVI\n1812 MDCCCXII\n2023 MMXXIII\n")


if __name__ == "__main__":
    unittest.main()
