import contextlib
import io
import unittest

from intervals.cli import main
from intervals.merge import merge, total_length


class MergeTest(unittest.TestCase):
    def test_overlapping(self):
        self.assertEqual(merge([(1, 3), (2, 6), (8, 10)]), [[1, 6], [8, 10]])

    def test_unsorted_input(self):
        self.assertEqual(merge([(8, 10), (1, 3)]), [[1, 3], [8, 10]])

    def test_touching_intervals_merge(self):
        self.assertEqual(merge([(1, 2), (2, 3)]), [[1, 3]])
        self.assertEqual(merge([(5, 5), (0, 5)]), [[0, 5]])

    def test_rejects_backwards_interval(self):
        with self.assertRaises(ValueError):
            merge([(5, 1)])


class TotalLengthTest(unittest.TestCase):
    def test_overlapping(self):
        self.assertEqual(total_length([(0, 4), (2, 6)]), 6)

    def test_touching(self):
        self.assertEqual(total_length([(0, 2), (2, 5), (5, 6)]), 6)
        self.assertEqual(merge([(0, 2), (2, 5), (5, 6)]), [[0, 6]])


class CliTest(unittest.TestCase):
    def test_prints_merged(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main(["1-3", "2-5", "7-8"])
        self.assertEqual(out.getvalue(), "1-5 7-8\n")


if __name__ == "__main__":
    unittest.main()
