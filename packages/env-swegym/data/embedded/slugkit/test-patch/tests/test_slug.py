import contextlib
import io
import unittest

from slugkit.cli import main
from slugkit.slug import filename, initials, slugify


class SlugifyTest(unittest.TestCase):
    def test_basic(self):
        self.assertEqual(slugify("Hello World"), "hello-world")

    def test_punctuation(self):
        self.assertEqual(slugify("  What's new? (2024) "), "what-s-new-2024")

    def test_accents_are_folded(self):
        self.assertEqual(slugify("Café Déjà Vu"), "cafe-deja-vu")
        self.assertEqual(slugify("Ñandú über Señor"), "nandu-uber-senor")


class FilenameTest(unittest.TestCase):
    def test_basic(self):
        self.assertEqual(filename("Annual Report 2023", "pdf"), "annual_report_2023.pdf")

    def test_empty_title(self):
        self.assertEqual(filename("???", "txt"), "untitled.txt")

    def test_accents_are_folded(self):
        self.assertEqual(filename("Crème Brûlée", "md"), "creme_brulee.md")


class InitialsTest(unittest.TestCase):
    def test_initials(self):
        self.assertEqual(initials("Émile Zola"), "EZ")


class CliTest(unittest.TestCase):
    def test_prints_slugs(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            main(["Hello World", "Second Post"])
        self.assertEqual(out.getvalue(), "hello-world\nsecond-post\n")


if __name__ == "__main__":
    unittest.main()
