"Elementwise functions on special values (NaN, +-inf, -0.0, huge) and on every dtype, compared with real torch on the same inputs."
import math
import numpy as np, pytest, torch
import litnn

SPECIAL = [float('nan'), float('inf'), -float('inf'), -0.0, 0.0, 1e30, -7.0, 2.5]

def _pair(fn, dtype, values=SPECIAL):
    "fn on the same values in torch and litnn: (torch's result as numpy, litnn's) in float64, or their exception types."
    out = []
    for lib in (torch, litnn):
        try:
            r = fn(lib, lib.tensor(values).to(getattr(lib, dtype)))
            out.append((str(r.dtype).split('.')[-1], r.to(lib.float64).numpy() if not r.dtype.is_complex else r.numpy()))
        except Exception as e:
            out.append(type(e))
    return out

@pytest.mark.parametrize('dtype', ['float32', 'float64', 'float16', 'bfloat16', 'int64', 'int8', 'bool'])
def test_angle_of_real_numbers_keeps_nan_and_reads_infinities(dtype):
    # the argument of a real number is pi below 0 and 0 elsewhere, NaN stays NaN: torch's angle of +inf is 0 and of -inf pi
    t, l = _pair(lambda lib, x: lib.angle(x), dtype)
    assert t[0] == l[0]
    np.testing.assert_array_equal(t[1], l[1])
