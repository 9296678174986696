"""litnn.utils.benchmark (reference/utils/benchmark) against torch.utils.benchmark 2.13: the statistics, reprs and
tables of the same replicates, the Timer's API and errors. (Times themselves are never compared: only what is
computed from given ones.)"""
import re
import pytest
import litnn
torch = pytest.importorskip('torch')
import torch.utils.benchmark as TB
import litnn.utils.benchmark as LB

RUNS = [[2.0e-4, 2.1e-4, 2.6e-4, 2.05e-4], [3e-3], [1e-5, 1.3e-5, 0.9e-5, 2e-5, 1.1e-5, 1.05e-5], [7.0, 7.5, 9.0]]
SPECS = [dict(stmt='x * 2', setup='x = torch.ones(3)', label='scale', sub_label='float'), dict(stmt='y = f(x)\nz = y + 1', setup='pass'),
         dict(stmt='x.exp()', setup='a\nb', description='n=10'), dict(stmt='pass', setup='', label='L', env='A', num_threads=4)]

def both(i, number=100):
    return [B.Measurement(number, RUNS[i], B.TaskSpec(**SPECS[i])) for B in (TB, LB)]

def norm(s): return re.sub(r'<[\w.]+ object at 0x[0-9a-f]+>', '<Measurement>', s)

@pytest.mark.parametrize('i', range(len(RUNS)))
def test_measurement_statistics_and_repr(i):
    t, l = both(i)
    for name in ('times', 'median', 'mean', 'iqr', 'significant_figures', 'has_warnings', 'title', 'env', 'as_row_name', 'number_per_run'):
        a, b = getattr(l, name), getattr(t, name)
        assert (a == pytest.approx(b, rel=1e-12)) if isinstance(b, (float, list)) else a == b, name
    assert norm(repr(l)) == norm(repr(t))
    assert [m.times for m in LB.Measurement.merge([l, l])] == [m.times for m in TB.Measurement.merge([t, t])]

def test_helpers():
    for x, n in [(3.14159, 2), (1234.5, 2), (0.000123456, 3), (999.96, 3), (1e-6, 1)]: assert LB.trim_sigfig(x, n) == TB.trim_sigfig(x, n)
    for t in (3e-10, 2e-6, 5e-4, 3.0, 1200.0): assert LB.select_unit(t) == TB.select_unit(t)
    assert LB.ordered_unique([3, 1, 3, 2]) == TB.ordered_unique([3, 1, 3, 2])

@pytest.mark.parametrize('style', ['plain', 'trim', 'colorize', 'rowwise', 'warnings'])
def test_compare_tables(style):
    out = []
    for B in (TB, LB):
        ms = [B.Measurement(10, [t * 10 for t in ts], B.TaskSpec(stmt, '', label=label, sub_label=sub, description=d, num_threads=n, env=env))
              for stmt, label, sub, d, n, ts, env in [
                  ('x * 2', 'ew', 'mul', 'n=100', 1, [1.0e-6, 1.1e-6, 1.0e-6], None), ('x * 2', 'ew', 'mul', 'n=1e4', 1, [5.0e-6, 5.2e-6, 9.1e-6], None),
                  ('x.exp()', 'ew', 'exp', 'n=100', 1, [1.4e-6, 1.5e-6, 1.4e-6], None), ('x.exp()', 'ew', 'exp', 'n=1e4', 1, [21e-6, 22e-6, 21.5e-6], None),
                  ('x.exp()', 'ew', 'exp', 'n=1e4', 4, [8e-6, 9e-6, 8.5e-6], None), ('a', 'other', None, 'd', 1, [2e-3, 2.1e-3], 'env1'),
                  ('a', 'other', None, 'd', 1, [3e-3, 2.9e-3], 'env2')]]
        c = B.Compare(ms)
        if style == 'trim': c.trim_significant_figures()
        if style == 'colorize': c.colorize()
        if style == 'rowwise': c.colorize(rowwise=True)
        if style == 'warnings': c.highlight_warnings()
        out.append(str(c))
    assert out[1] == out[0]

def test_timer_api():
    for B, lib in ((TB, torch), (LB, litnn)):
        t = B.Timer('x * 2', setup='x = torch.ones(3)', label='L', sub_label='s', description='d', num_threads=1)
        m = t.timeit(50)
        assert (m.number_per_run, len(m.raw_times), m.title, m.description) == (50, 1, 'L: s', 'd')
        m = t.blocked_autorange(min_run_time=0.01)
        assert m.number_per_run >= 1 and sum(m.raw_times) >= 0.01
        m = B.Timer('y = x + 1', globals={'x': lib.ones(2)}).adaptive_autorange(max_run_time=0.02)
        assert m.title == 'y = x + 1' and m.raw_times
        with pytest.raises(NotImplementedError, match='blocked_autorange'): B.Timer().repeat()
        with pytest.raises(NotImplementedError, match='blocked_autorange'): B.Timer().autorange()
        with pytest.raises(ValueError, match='only a `str` stmt'): B.Timer(lambda: 1)
        with pytest.raises(ValueError, match='global_setup is C\\+\\+ only'): B.Timer('pass', global_setup='int x;')
        with pytest.raises(ValueError, match='Expected an instance of `Measurement`'): B.Compare([1])
        with pytest.raises(ValueError, match='Invalid language'): B.Timer('pass', language='rust')
    assert not hasattr(litnn.utils, 'benchmark') or 'litnn.utils.benchmark' in __import__('sys').modules   # loaded on import, as torch's
    assert [n for n in ('Timer', 'Measurement', 'Compare', 'TaskSpec', 'Language', 'Colorize', 'timer', 'select_unit') if not hasattr(LB, n)] == []
