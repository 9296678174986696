"""The book's one table, `nbs/book.yml`: its parts and chapters in reading order, then the reference shelf.

The site's navigation (tools/build_docs.py), the overview map (nbs/overview.ipynb) and the reading path on
the home page (nbs/index.ipynb) are all made from it, and tests/test_book.py checks that it names every
notebook once and that the file names follow the book's rules."""
import re
from functools import lru_cache
from pathlib import Path

import yaml

NBS = Path(__file__).resolve().parent.parent/'nbs'
HOME = ('index', 'overview')        # the reading page and the map: first, outside the parts


@lru_cache(maxsize=None)
def table(path=NBS/'book.yml'):
    return yaml.safe_load(Path(path).read_text(encoding='utf-8'))


def parts():
    "[(part title, about, [chapter dicts with `nb`, the path under nbs/ without .ipynb])], the book then the shelves."
    t = table()
    out = [(p['part'], p['about'], [dict(c) for c in p['chapters']]) for p in t['book']]
    out += [(f"Reference: {s['shelf']}", s.get('about', ''), [{'nb': f'reference/{n}'} for n in s['notebooks']])
            for s in t['reference']]
    return out


def order():
    "Every notebook's path under nbs/ (no suffix), in reading order: the home page, the map, the book, the shelf."
    return list(HOME) + [c['nb'] for _, _, chs in parts() for c in chs]


def part_of(nb):
    "The part (or `Reference: ...` shelf) that notebook `nb` (its path under nbs/, no suffix) belongs to; None for HOME."
    for title, _, chs in parts():
        if any(c['nb'] == nb for c in chs): return title
    if nb in HOME: return None
    raise KeyError(f'{nb} is not in nbs/book.yml: add it to its part or shelf')


def module_path():
    "The chapters of the Module path: [(nb, question)], in reading order."
    return [(c['nb'], c['asks']) for _, _, chs in parts() for c in chs if c.get('path')]


def number(nb):
    "A book chapter's number and letter (`21`, `13a`), or None for unnumbered notebooks."
    m = re.match(r'(\d\d[a-z]?)_', Path(nb).name)
    return m[1] if m and '/' not in nb else None


def title(nb):
    "What the navigation calls a notebook: the table's `title:` where it gives one, else the notebook's first `# ` heading."
    import json
    for _, _, chs in parts():
        for c in chs:
            if c['nb'] == nb and 'title' in c: return c['title']
    for c in json.loads((NBS/f'{nb}.ipynb').read_text(encoding='utf-8'))['cells']:
        src = ''.join(c['source']) if isinstance(c['source'], list) else c['source']
        if c['cell_type'] == 'markdown' and (m := re.search(r'^# (.+)$', src, re.M)): return m[1].strip()
    return Path(nb).name
