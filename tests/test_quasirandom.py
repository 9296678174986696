"torch.quasirandom.SobolEngine: points, states and errors equal to torch's (reference/quasirandom)."
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')


def _run(lib, dim, scramble, seed, dtype):
    e = lib.quasirandom.SobolEngine(dim, scramble=scramble, seed=seed)
    kw = {} if dtype is None else dict(dtype=getattr(lib, dtype))
    pts = [e.draw(1, **kw), e.draw(6, **kw), e.fast_forward(9).draw(17, **kw), e.reset().draw_base2(3, **kw), e.draw(0, **kw)]
    return [p.numpy() for p in pts] + [e.quasi.numpy(), e.sobolstate.numpy(), e.shift.numpy()], e.num_generated


_CASES = [(dim, scramble, seed, dtype) for dim in (1, 2, 7, 300) for scramble, seed in ((False, None), (True, 0), (True, 2024))
          for dtype in (None, 'float64')] + [(21201, False, None, None), (21201, True, 5, None)]     # (the largest: once each way)


@pytest.mark.parametrize('dim,scramble,seed,dtype', _CASES)
def test_sobol_engine_draws_torchs_points_bitwise(dim, scramble, seed, dtype):
    (a, na), (b, nb) = _run(torch, dim, scramble, seed, dtype), _run(litnn, dim, scramble, seed, dtype)
    assert na == nb
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and x.shape == y.shape
        np.testing.assert_array_equal(y, x)


def test_scrambled_without_seed_uses_the_global_generator_as_torch():
    torch.manual_seed(3); litnn.manual_seed(3)
    a = torch.quasirandom.SobolEngine(4, scramble=True).draw(8)
    b = litnn.quasirandom.SobolEngine(4, scramble=True).draw(8)
    np.testing.assert_array_equal(b.numpy(), a.numpy())
    np.testing.assert_array_equal(litnn.rand(3).numpy(), torch.rand(3).numpy())    # the same draws consumed


def test_sobol_points_are_balanced():
    "Any power-of-2 count of points puts the same number in each half of each axis, scrambled or not."
    for e in (litnn.quasirandom.SobolEngine(5), litnn.quasirandom.SobolEngine(5, scramble=True, seed=1)):
        p = e.draw_base2(6).numpy()
        assert ((p < 0.5).sum(0) == 32).all() and ((p >= 0) & (p < 1)).all()


def test_sobol_engine_errors_as_torch():
    calls = [lambda lib: lib.quasirandom.SobolEngine(0), lambda lib: lib.quasirandom.SobolEngine(21202),
             lambda lib: lib.quasirandom.SobolEngine(3).draw(0),
             lambda lib: lib.quasirandom.SobolEngine(3).draw(2, dtype=lib.float16),
             lambda lib: lib.quasirandom.SobolEngine(3).draw(2, dtype=lib.int64),
             lambda lib: lib.quasirandom.SobolEngine(2).draw(2.5),
             lambda lib: [e := lib.quasirandom.SobolEngine(3), e.draw(3), e.draw_base2(1)],
             lambda lib: lib._sobol_engine_draw(lib.zeros(2), 2, lib.zeros(2, 30, dtype=lib.long), 2, 0, dtype=None),
             lambda lib: lib._sobol_engine_ff_(lib.zeros(2, dtype=lib.long), 2, lib.zeros(2, 30), 2, 0)]
    for call in calls:
        with pytest.raises(Exception) as t: call(torch)
        with pytest.raises(type(t.value)) as l: call(litnn)
        assert str(l.value) == str(t.value)


def test_sobol_engine_out_repr_and_first_point_as_torch():
    res = []
    for lib in (torch, litnn):
        o = lib.empty(0)
        e = lib.quasirandom.SobolEngine(3, scramble=True, seed=4)
        r = e.draw(3, out=o)
        res.append((r is o, o.numpy().tolist(), repr(e), repr(lib.quasirandom.SobolEngine(2)), str(e._first_point.dtype).split('.')[-1],
                    lib.quasirandom.SobolEngine(3).fast_forward(0).num_generated))
    assert res[0] == res[1]
