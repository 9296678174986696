"""The outputs saved in the notebooks are what a reader should see on the site: no warning leaked from the code
(`file:line: SomeWarning: ...`), no traceback, no file path of the machine that ran it (issue 27: clean pages).
A demonstration that is about a warning catches it and prints its message."""
import json, re
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
NBS = sorted(p for p in (ROOT/'nbs').rglob('*.ipynb') if '.ipynb_checkpoints' not in p.parts)

LEAKS = {'a leaked warning': re.compile(r'(?m)^\S+:\d+: \w*Warning: '),
         'a traceback': re.compile(r'Traceback \(most recent call last\)'),
         'a file path': re.compile(r'(?<![\w.])/(tmp|work|home|root|Users|private|var/folders)/|<ipython-input-\d+|[A-Z]:\\\\Users')}

def outputs(nb):
    for i, c in enumerate(json.loads(nb.read_text(encoding='utf-8'))['cells']):
        for o in c.get('outputs', []):
            if o.get('output_type') == 'error': yield i, 'error', f"{o.get('ename')}: {o.get('evalue')}"
            elif o.get('output_type') == 'stream': yield i, o.get('name'), ''.join(o.get('text', ''))
            else: yield i, 'data', ''.join(o.get('data', {}).get('text/plain', ''))

def leaks(nb):
    out = []
    for i, kind, text in outputs(nb):
        if kind == 'error': out.append((i, 'an error output', text[:80])); continue
        out += [(i, what, m.group(0)) for what, rx in LEAKS.items() if (m := rx.search(text))]
    return out

@pytest.mark.parametrize('nb', NBS, ids=lambda p: p.stem)
def test_saved_outputs_are_clean(nb):
    assert leaks(nb) == []

def test_the_checker_finds_each_kind(tmp_path):
    cell = lambda text, name='stderr': {'cell_type': 'code', 'source': [], 'metadata': {}, 'outputs': [
        {'output_type': 'stream', 'name': name, 'text': [text]}]}
    nb = tmp_path/'x.ipynb'
    nb.write_text(json.dumps({'cells': [cell('/a/b.py:3: RuntimeWarning: divide by zero\n'), cell('Traceback (most recent call last):\n'),
                                        cell('saved to /tmp/tmpab12/model.pt\n', 'stdout'), cell('FutureWarning `x` is deprecated\n', 'stdout')]}))
    assert [what for _, what, _ in leaks(nb)] == ['a leaked warning', 'a traceback', 'a file path']   # a printed message is no leak
