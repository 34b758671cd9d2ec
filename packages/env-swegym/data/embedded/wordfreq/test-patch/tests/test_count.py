import os
import unittest

from wordfreq.count import top_words, words

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "sample.txt")


class WordsTest(unittest.TestCase):
    def test_lower_case(self):
        self.assertEqual(words("Hello World"), ["hello", "world"])

    def test_double_spaces(self):
        self.assertEqual(words("a  b"), ["a", "b"])

    def test_splits_on_any_whitespace(self):
        self.assertEqual(words("one\ttwo\nthree\r\nfour"), ["one", "two", "three", "four"])


class TopWordsTest(unittest.TestCase):
    def test_strips_punctuation(self):
        self.assertEqual(top_words("Yes! yes, no.", 2), [("yes", 2), ("no", 1)])

    def test_splits_on_any_whitespace(self):
        self.assertEqual(top_words("red\nred\tblue red", 2), [("red", 3), ("blue", 1)])


class FileTest(unittest.TestCase):
    def test_counts_the_sample_file(self):
        with open(SAMPLE, encoding="utf-8") as handle:
            text = handle.read()
        self.assertEqual(top_words(text, 3), [("the", 5), ("saw", 2), ("dog", 2)])


if __name__ == "__main__":
    unittest.main()
