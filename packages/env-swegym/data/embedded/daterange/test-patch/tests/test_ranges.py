import contextlib
import io
import os
import unittest
from datetime import date

from daterange.cli import main
from daterange.months import split_by_month
from daterange.ranges import DateRange, length, overlap, parse_range

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "leave.txt")


class ParseRangeTest(unittest.TestCase):
    def test_start_and_end(self):
        self.assertEqual(parse_range("2024-01-01..2024-01-31"), (date(2024, 1, 1), date(2024, 1, 31)))
        with self.assertRaises(ValueError):
            parse_range("2024-01-31..2024-01-01")

    def test_whole_month(self):
        self.assertEqual(parse_range("2024-02"), (date(2024, 2, 1), date(2024, 2, 29)))
        self.assertEqual(parse_range(" 2023-06 "), (date(2023, 6, 1), date(2023, 6, 30)))

    def test_december(self):
        self.assertEqual(parse_range("2024-12"), (date(2024, 12, 1), date(2024, 12, 31)))
        self.assertEqual(length(parse_range("2023-12")), 31)


class MeasureTest(unittest.TestCase):
    def test_length_and_overlap(self):
        january = parse_range("2024-01")
        self.assertEqual(length(january), 31)
        self.assertEqual(
            overlap(january, parse_range("2024-01-30..2024-02-03")), (date(2024, 1, 30), date(2024, 1, 31))
        )
        self.assertIsNone(overlap(january, parse_range("2024-02")))


class SplitByMonthTest(unittest.TestCase):
    def test_across_months(self):
        self.assertEqual(
            split_by_month(DateRange(date(2024, 1, 20), date(2024, 3, 5))),
            [
                (date(2024, 1, 20), date(2024, 1, 31)),
                (date(2024, 2, 1), date(2024, 2, 29)),
                (date(2024, 3, 1), date(2024, 3, 5)),
            ],
        )

    def test_across_the_new_year(self):
        self.assertEqual(
            split_by_month(DateRange(date(2024, 11, 15), date(2025, 1, 10))),
            [
                (date(2024, 11, 15), date(2024, 11, 30)),
                (date(2024, 12, 1), date(2024, 12, 31)),
                (date(2025, 1, 1), date(2025, 1, 10)),
            ],
        )


class CliTest(unittest.TestCase):
    def test_prints_the_fixture(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main([FIXTURE])
        self.assertEqual(
            out.getvalue(),
            "alice 2024-01-08..2024-01-12 5\n"
            "bob 2024-03-01..2024-03-31 31\n"
            "carol 2024-07-29..2024-08-02 5\n"
            "total 41\n",
        )


if __name__ == "__main__":
    unittest.main()
