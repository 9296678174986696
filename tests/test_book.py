"""The book's rules (issue 27): numbered notebooks are the book, a decade of numbers per part in reading order, the
second digit the chapter, at most one letter for an appendix, no prefix shared by two notebooks; the long tail sits in
unnumbered notebooks under nbs/reference/, named by torch path; nbs/book.yml names every notebook exactly once."""
import re, sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NBS = ROOT/'nbs'
sys.path.insert(0, str(ROOT/'tools'))
from book import HOME, module_path, number, order, parts, table  # noqa: E402

UNNUMBERED = {'index', 'overview', 'readme'}     # the reading page, the map, the README


def on_disk():
    return sorted(p.relative_to(NBS).with_suffix('').as_posix() for p in NBS.rglob('*.ipynb')
                  if not any(part.startswith(('_', '.')) for part in p.relative_to(NBS).parts))


def book_parts(): return [(title, chs) for title, _, chs in parts() if not title.startswith('Reference')]


def test_the_table_names_every_notebook_once():
    listed = order()
    assert [n for n, k in Counter(listed).items() if k > 1] == []
    assert sorted(set(on_disk()) - set(listed)) == [], 'notebooks missing from nbs/book.yml'
    assert sorted(set(listed) - set(on_disk())) == [], 'nbs/book.yml names notebooks that do not exist'


def test_book_and_shelf_are_apart():
    "Numbered notebooks sit in nbs/ and are the book; everything under nbs/reference/ is unnumbered and on a shelf."
    for nb in on_disk():
        if nb.startswith('reference/'):
            assert not re.match(r'\d', Path(nb).name), f'{nb}: a reference notebook has no number'
        elif nb not in UNNUMBERED:
            assert '/' not in nb and re.fullmatch(r'\d\d[a-z]?_[a-z0-9_]+', nb), f'{nb}: a chapter is NN_name or NNx_name'
    for title, chs in book_parts():
        assert all(not c['nb'].startswith('reference/') for c in chs), title
    for title, _, chs in parts():
        if title.startswith('Reference'): assert all(c['nb'].startswith('reference/') for c in chs), title


def test_a_decade_per_part_in_reading_order():
    "Part k holds the numbers k0 to k9; the table lists its chapters in number order, each appendix after its chapter."
    numbers = []
    for k, (title, chs) in enumerate(book_parts()):
        nums = [number(c['nb']) for c in chs if c['nb'] not in UNNUMBERED]
        assert nums and all(n[0] == str(k) for n in nums), f'part {k} ({title}): {nums}'
        assert nums == sorted(nums), f'{title}: the table lists its chapters out of order'
        for n in nums:
            if len(n) == 3: assert n[:2] in nums, f'appendix {n} without its chapter {n[:2]}'
        numbers += nums
    assert len(book_parts()) == 9


def test_no_prefix_is_shared():
    prefixes = Counter(number(nb) for nb in on_disk() if number(nb))
    assert [p for p, k in prefixes.items() if k > 1] == []
    assert max(len(p) for p in prefixes) == 3                       # at most one letter


def test_the_module_path():
    "A dozen or so chapters, in reading order, each with the question it answers, from the Tensor to Linear."
    path = module_path()
    assert 10 <= len(path) <= 16
    nbs = [nb for nb, _ in path]
    assert nbs == sorted(nbs) and nbs[0] == '10_tensor' and nbs[-1] == '29_linear'
    assert all(q.strip().endswith('?') for _, q in path)
    for must in ('registration', 'traversal', 'train_eval', 'apply_to', 'hooks', 'state_dict', 'containers', 'init'):
        assert any(nb.endswith('_' + must) for nb in nbs), must


def test_reference_names_say_their_torch_path():
    "A shelf's notebooks live in the folder of the torch module they build (nbs/reference/nn/..., optim/...)."
    for s in table()['reference']:
        for nb in s['notebooks']:
            top = nb.split('/')[0].split('_')[0]
            assert top in s['shelf'] or s['shelf'].startswith('litnn') or top == 'backprop', (s['shelf'], nb)


def test_home_first():
    assert order()[:2] == list(HOME)
