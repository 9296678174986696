"""Heading ids as Quarto (pandoc) makes them, so that nbdev's doc links (`page.html#module.children`)
find their headings on the pages tools/build_docs.py renders with mkdocs."""
import re, unicodedata


def slugify(value, separator='-'):
    "pandoc's auto_identifiers: lowercase; keep letters, digits, `_`, `-`, `.`; spaces to `-`; start at a letter."
    value = unicodedata.normalize('NFKC', value).strip().lower()
    value = re.sub(r'[^\w\s.-]', '', value)
    value = re.sub(r'\s+', separator, value)
    return re.sub(r'^[^a-z]+', '', value) or 'section'
