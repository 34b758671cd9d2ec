import os
import unittest

from timeparse.cli import total_of
from timeparse.duration import format_duration, parse_duration

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "timeouts.txt")


class ParseTest(unittest.TestCase):
    def test_hours_and_minutes(self):
        self.assertEqual(parse_duration("1h30m"), 5400)
        self.assertEqual(parse_duration("2h 5m"), 7500)

    def test_seconds(self):
        self.assertEqual(parse_duration("90s"), 90)

    def test_days(self):
        self.assertEqual(parse_duration("2d"), 172800)

    def test_days_and_hours(self):
        self.assertEqual(parse_duration("1d 2h"), 93600)
        self.assertEqual(parse_duration("1D12H"), 129600)

    def test_rejects_text_without_a_duration(self):
        with self.assertRaises(ValueError):
            parse_duration("soon")


class FormatTest(unittest.TestCase):
    def test_format(self):
        self.assertEqual(format_duration(5400), "1h30m")
        self.assertEqual(format_duration(0), "0s")


class FileTest(unittest.TestCase):
    def test_total_of_the_fixture(self):
        with open(FIXTURE, encoding="utf-8") as handle:
            self.assertEqual(format_duration(total_of(handle)), "2h30m")


if __name__ == "__main__":
    unittest.main()
