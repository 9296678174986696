"""torch.scalar_tensor against torch 2.13: the number must be a Number (or a 0-d tensor), fit the dtype (torch's fill:
checked, but half precision only read as a double, so 1e39 is inf), a complex one with no imaginary part gives its real
part, and a Python int is an int64 or a uint64 (larger: OverflowError)."""
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

CASES = [
    (3, None), (True, None), (2.5, 'float64'), (2, float), (-1, 'uint8'), (300, 'uint8'), (-129, 'int8'), (1 + 0j, None), (1j, None),
    (1j, 'int64'), (1j, 'complex64'), (1e300, None), (1e39, 'float16'), (1e300, 'bfloat16'), (float('inf'), 'int32'), (float('nan'), 'int32'),
    (2 ** 70, None), (2 ** 64 - 1, 'float64'), (2 ** 64, None), (2 ** 64 - 1, 'int64'), (2 ** 63 - 1, 'int64'), (np.float32(2.5), None),
    (np.int64(7), 'int8'), (2, 'bool'), ('a', None), (None, None), ([1], None), ('0-d tensor', None), (1 + 0j, 'float16'),
]

def outcome(lib, s, dt):
    if isinstance(dt, str): dt = getattr(lib, dt)
    if isinstance(s, str) and s == '0-d tensor': s = lib.tensor(2.5)
    try:
        r = lib.scalar_tensor(s) if dt is None else lib.scalar_tensor(s, dtype=dt)
        return str(r.dtype).split('.')[-1], repr(r.item())
    except Exception as e: return type(e).__name__, str(e)

@pytest.mark.parametrize('s,dt', CASES)
def test_scalar_tensor(s, dt):
    assert outcome(litnn, s, dt) == outcome(torch, s, dt)


@pytest.mark.parametrize('f', [
    lambda L: L.full((2,), 1e39, dtype=L.bfloat16), lambda L: L.full((1,), 1e39, dtype=L.bfloat16), lambda L: L.full((1,), 1e6, dtype=L.float16),
    lambda L: L.full((3,), 1e6, dtype=L.float16), lambda L: L.full((1,), 1e300), lambda L: L.ones(2, dtype=L.float16).fill_(1e6),
    lambda L: L.full_like(L.ones(2, dtype=L.float16), 1e6), lambda L: L.where(L.tensor([False, False]), L.ones(2, dtype=L.float16), 1e6),
    lambda L: L.ones(1, dtype=L.float16).fill_(1e6), lambda L: L.ones(1, dtype=L.bfloat16).fill_(1e39), lambda L: L.ones(1).fill_(1e300),
    lambda L: L.full_like(L.ones(1, dtype=L.float16), 1e6), lambda L: L.where(L.tensor([True, False]), L.ones(2, dtype=L.float16), 1e6),
    lambda L: L.full((1,), 300, dtype=L.uint8), lambda L: L.ones(1, dtype=L.int8).fill_(300), lambda L: L.clamp_min(L.ones(1, dtype=L.float16), 1e6)])
def test_fill_into_half_precision_is_unchecked(f):
    "torch reads a number into half precision unchecked (inf) in where and in full/fill_ of one element (more are checked); other dtypes, and clamp, check it."
    res = []
    for lib in (torch, litnn):
        try: res.append(repr(f(lib).tolist()))
        except RuntimeError as e: res.append(str(e))
    assert res[0] == res[1]
