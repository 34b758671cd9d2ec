import contextlib
import io
import os
import unittest

from unitconv.cli import main
from unitconv.quantity import convert, parse_quantity

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "parcels.txt")


class ParseTest(unittest.TestCase):
    def test_compact_and_spaced(self):
        self.assertEqual(parse_quantity("250g"), (250, "g"))
        self.assertEqual(parse_quantity(" 3 KM "), (3, "km"))

    def test_decimal_amount(self):
        self.assertEqual(parse_quantity("2.5kg"), (2.5, "kg"))
        self.assertEqual(parse_quantity("0.75 km"), (0.75, "km"))

    def test_rejects_unknown_unit(self):
        with self.assertRaises(ValueError):
            parse_quantity("5 parsecs")


class ConvertTest(unittest.TestCase):
    def test_whole_result(self):
        self.assertEqual(convert(2, "km", "m"), 2000)
        self.assertEqual(convert(3000, "g", "kg"), 3)

    def test_fractional_result(self):
        self.assertEqual(convert(1500, "g", "kg"), 1.5)
        self.assertEqual(convert(250, "m", "km"), 0.25)
        self.assertEqual(convert(5, "mm", "cm"), 0.5)

    def test_rejects_another_kind(self):
        with self.assertRaises(ValueError):
            convert(1, "kg", "m")


class CliTest(unittest.TestCase):
    def test_converts_the_fixture(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main([FIXTURE])
        self.assertEqual(out.getvalue(), "books 12 kg\nlaptop 2 kg\nprinter 9 kg\ntotal 23 kg\n")


if __name__ == "__main__":
    unittest.main()
