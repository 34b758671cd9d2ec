import os
import unittest

from wordfreq.count import top_words, words

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "sample.txt")


class WordsTest(unittest.TestCase):
    def test_lower_case(self):
        self.assertEqual(words("Hello World"), ["hello", "world"])

    def test_double_spaces(self):
        self.assertEqual(words("a  b"), ["a", "b"])


class TopWordsTest(unittest.TestCase):
    def test_strips_punctuation(self):
        self.assertEqual(top_words("Yes! yes, no.", 2), [("yes", 2), ("no", 1)])


class FileTest(unittest.TestCase):
    def test_counts_the_sample_file(self):
        with open(SAMPLE, encoding="utf-8") as handle:
            text = handle.read()
        self.assertEqual(top_words(text, 3), [("the", 5), ("saw", 2), ("dog", 2)])


if __name__ == "__main__":
    unittest.main()
