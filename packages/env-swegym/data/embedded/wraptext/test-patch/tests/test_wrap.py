import contextlib
import io
import os
import unittest

from wraptext.cli import main
from wraptext.paragraphs import paragraphs
from wraptext.wrap import truncate, wrap

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "sample.txt")


class WrapTest(unittest.TestCase):
    def test_short_text_is_one_line(self):
        self.assertEqual(wrap("Hello world", 40), ["Hello world"])
        self.assertEqual(wrap("", 40), [])

    def test_breaks_between_words(self):
        self.assertEqual(
            wrap("The quick brown fox jumps over the lazy dog", 16),
            ["The quick brown", "fox jumps over", "the lazy dog"],
        )
        self.assertEqual(wrap("a supercalifragilistic word", 10), ["a", "supercalifragilistic", "word"])

    def test_line_may_fill_the_width(self):
        self.assertEqual(wrap("the quick brown fox jumps", 15), ["the quick brown", "fox jumps"])
        self.assertEqual(wrap("aa bb cc", 5), ["aa bb", "cc"])


class TruncateTest(unittest.TestCase):
    def test_long_text_gets_an_ellipsis(self):
        self.assertEqual(truncate("The quick brown fox", 12), "The quick...")
        self.assertEqual(truncate("short", 10), "short")

    def test_text_of_exactly_the_width_is_kept(self):
        self.assertEqual(truncate("hello", 5), "hello")
        self.assertEqual(truncate("The quick brown fox", 19), "The quick brown fox")


class ParagraphsTest(unittest.TestCase):
    def test_splits_on_blank_lines(self):
        text = "First line\nstill first.\n\n\nSecond one.\n"
        self.assertEqual(paragraphs(text), ["First line still first.", "Second one."])


class CliTest(unittest.TestCase):
    def test_wraps_the_sample_file(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main([FIXTURE, "34"])
        self.assertEqual(
            out.getvalue(),
            "Call me Ishmael. Some years ago,\n"
            "never mind how long precisely,\n"
            "having little or no money in my\n"
            "purse, and nothing particular to\n"
            "interest me on shore, I thought I\n"
            "would sail about a little and see\n"
            "the watery part of the world.\n"
            "\n"
            "It is a way I have of driving off\n"
            "the spleen and regulating the\n"
            "circulation.\n",
        )


if __name__ == "__main__":
    unittest.main()
