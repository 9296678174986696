"""Anomaly mode (nbs/02h_anomaly) side by side with torch 2.13: off by default, the NaN error names the
node and output, the warning carries the forward line, check_nan, the switches and their state."""
import warnings
import numpy as np, pytest
import litnn
torch = pytest.importorskip('torch')

needs_gpu = pytest.mark.skipif(not litnn.cuda.is_available(), reason="needs a GPU (CuPy)")

@pytest.fixture(autouse=True)
def anomaly_off():
    "Each test starts and ends with anomaly mode off in both libraries."
    for lib in (litnn, torch): lib.set_anomaly_enabled(False)
    yield
    for lib in (litnn, torch): lib.set_anomaly_enabled(False)

def test_off_by_default_and_nan_passes_silently():
    for lib in (litnn, torch):
        assert (lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()) == (False, True)
        x = lib.tensor([0., 1.], requires_grad=True)
        with np.errstate(all='ignore'): (x * 0).sqrt().sum().backward()
        assert np.isnan(x.grad.detach().numpy()).all()

# Graphs whose backward makes a NaN, on inputs given as numpy arrays: (forward, inputs)
CASES = {
    'mul_output0': (lambda lib, x: (x * 0).sqrt().sum(), [np.array([0., 1.])]),
    'mul_output1': (lambda lib, x, y: (x * y).sqrt().sum(), [np.array([0., 2.]), np.array([3., 0.])]),
    'div': (lambda lib, x: (x / x).sum(), [np.array([0., 1.])]),
    'log_in_mlp': (lambda lib, x, w: lib.nn.functional.linear(x, w).clamp(min=0).log().mean(),
                   [np.array([[1., -1.], [2., 0.]]), np.array([[1., 1.], [0., 1.]])]),
    'double_backward': (None, [np.array([0., 4.])]),
}

def _nan_error(lib, name, check_nan=True):
    "The error and warnings of a backward that makes a NaN, under detect_anomaly(check_nan)."
    f, arrays = CASES[name]
    xs = [lib.tensor(a, requires_grad=True) for a in arrays]
    with warnings.catch_warnings(record=True) as caught, np.errstate(all='ignore'):
        warnings.simplefilter('always')
        err = None
        with lib.autograd.detect_anomaly(check_nan=check_nan):
            try:
                if name == 'double_backward':
                    y = xs[0].sqrt().sum()              # the forward line of the failing node
                    g, = lib.autograd.grad(y, xs, create_graph=True)
                    (g * 0).sum().backward()
                else:
                    out = f(lib, *xs)                   # the forward line of the failing node
                    out.backward()
            except RuntimeError as e: err = str(e)
    return err, [(w.category, str(w.message)) for w in caught], [x.grad for x in xs]

@pytest.mark.parametrize('name', list(CASES))
def test_nan_error_as_torch(name):
    mine, theirs = _nan_error(litnn, name), _nan_error(torch, name)
    assert mine[0] is not None and mine[0] == theirs[0]
    assert mine[0].startswith("Function '") and mine[0].endswith("th output.")

def _frames_here(message):
    "The frames of a forward trace that are in this file: the user's part of the trace."
    return [l.strip() for l in message.split('\n') if l.strip().startswith(f'File "{__file__}"')]

@pytest.mark.parametrize('name', list(CASES))
def test_warnings_as_torch(name):
    """The first warning is detect_anomaly's own; the next names the failing node and gives the forward trace,
    whose frames in user code are torch's (litnn's own Python frames, e.g. `F.linear`, come after them)."""
    (_, mine, _), (_, theirs, _) = _nan_error(litnn, name), _nan_error(torch, name)
    mine = [m for c, m in mine if c is UserWarning]; theirs = [m for c, m in theirs if c is UserWarning]
    assert mine[0] == theirs[0] == ("Anomaly Detection has been enabled. This mode will increase the runtime and should "
                                    "only be enabled for debugging.")
    head = mine[1].split('\n')[0]
    assert head == theirs[1].split('\n')[0]
    assert head.startswith("Error detected in ") and head.endswith("Traceback of forward call that caused the error:")
    assert _frames_here(mine[1]) == _frames_here(theirs[1]) and _frames_here(mine[1])
    assert 'litnn/autograd/graph.py' not in mine[1]          # the recording machinery is left out

@pytest.mark.parametrize('name', ['mul_output0', 'div'])
def test_check_nan_false(name):
    "check_nan=False: no error, the NaN reaches .grad, as in torch."
    mine, theirs = _nan_error(litnn, name, check_nan=False), _nan_error(torch, name, check_nan=False)
    assert mine[0] is None and theirs[0] is None
    for a, b in zip(mine[2], theirs[2]): np.testing.assert_array_equal(a.numpy(), b.numpy())

def test_results_unchanged_without_nan():
    "Anomaly mode changes nothing in a backward that makes no NaN."
    grads = []
    for on in (False, True):
        litnn.manual_seed(0)
        net = litnn.nn.Sequential(litnn.nn.Linear(3, 4), litnn.nn.Tanh(), litnn.nn.Linear(4, 1))
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            with litnn.autograd.set_detect_anomaly(on): net(litnn.ones(2, 3)).sum().backward()
        grads.append([p.grad.numpy() for p in net.parameters()])
    for a, b in zip(*grads): np.testing.assert_array_equal(a, b)

def _switches(lib):
    states = [(lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())]
    s = lib.autograd.set_detect_anomaly(True, check_nan=False)        # a function: on now
    states.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    with s: pass                                                       # leaving it restores what was before
    states.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    with lib.autograd.set_detect_anomaly(True):
        with lib.autograd.set_detect_anomaly(False): states.append((lib.is_anomaly_enabled(),))
        states.append((lib.is_anomaly_enabled(),))
    lib.set_anomaly_enabled(True, False); states.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    lib.set_anomaly_enabled(False); states.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        try:
            with lib.autograd.detect_anomaly(): raise KeyError
        except KeyError: pass
    states.append((lib.is_anomaly_enabled(),))
    return states

def test_switches_as_torch():
    assert _switches(litnn) == _switches(torch)

def test_error_in_backward_warns_with_trace():
    "An error that is not a NaN (here a pre-hook of the node that raises) also comes with the forward trace."
    res = []
    for lib in (litnn, torch):
        x = lib.tensor([1., 2.], requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            with lib.autograd.detect_anomaly():
                y = x * 3                                   # the node that fails
                y.grad_fn.register_prehook(lambda g: 1 / 0)
                with pytest.raises(ZeroDivisionError): y.sum().backward()
        msgs = [str(w.message) for w in caught if 'Error detected' in str(w.message)]
        res.append((msgs[0].split('\n')[0], msgs[0].rstrip('\n').split('\n')[-1].strip() if lib is litnn else msgs[0]))
    assert res[0][0] == res[1][0] == "Error detected in MulBackward0. Traceback of forward call that caused the error:"
    assert res[0][1] == "y = x * 3                                   # the node that fails" and res[0][1] in res[1][1]

def test_names_where_torch_has_them():
    for name in ('detect_anomaly', 'set_detect_anomaly'): assert hasattr(litnn.autograd, name)
    for name in ('detect_anomaly', 'set_detect_anomaly'): assert hasattr(litnn.autograd.anomaly_mode, name)
    for name in ('is_anomaly_enabled', 'is_anomaly_check_nan_enabled', 'set_anomaly_enabled'): assert hasattr(litnn, name)

@needs_gpu
def test_nan_error_on_gpu():
    x = litnn.tensor([0., 1.], requires_grad=True, device='cuda')
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        with litnn.autograd.detect_anomaly():
            with pytest.raises(RuntimeError, match=r"Function 'MulBackward0' returned nan values in its 0th output\."):
                (x * 0).sqrt().sum().backward()


def test_warning_turned_error_is_printed_not_raised(capsys):
    "With warnings as errors, the anomaly report goes to stderr and the backward's own error propagates (torch: PyErr_Print)."
    for lib in (litnn, torch):
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            with warnings.catch_warnings():
                with lib.autograd.detect_anomaly():
                    warnings.simplefilter("error")
                    a = lib.randn(5, requires_grad=True)
                    d1 = a + 1
                    d2 = d1 ** 2
                    d1 += 1
                    lib.autograd.grad(d2.sum(), a)
        assert "Error detected in PowBackward0" in capsys.readouterr().err


def test_custom_function_node_carries_its_forward_trace():
    "A custom Function's node made in anomaly mode: the NaN report shows the line that called `apply` (as torch's)."
    for lib in (litnn, torch):
        class MyFunc(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x): return x.clone()
            @staticmethod
            def backward(ctx, g): return g * float("nan")
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with lib.autograd.detect_anomaly():
                out = MyFunc.apply(lib.rand(3, requires_grad=True))      # THE_FORWARD_LINE
                with pytest.raises(RuntimeError, match="Function 'MyFuncBackward' returned nan values in its 0th output."):
                    out.sum().backward()
        msgs = [str(m.message) for m in w if 'Error detected' in str(m.message)]
        assert len(msgs) == 1 and 'THE_FORWARD_LINE' in msgs[0] and msgs[0].startswith('Error detected in MyFuncBackward.')
