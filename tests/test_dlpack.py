"""DLPack: litnn.from_dlpack, Tensor.__dlpack__ and litnn.utils.dlpack side by side with torch: zero-copy both ways."""
import numpy as np, pytest
torch = pytest.importorskip('torch')
import litnn
from litnn.utils import dlpack

def test_paths():
    assert litnn.from_dlpack is dlpack.from_dlpack and dlpack.from_dlpack.__module__ == 'litnn.utils.dlpack'
    assert [(m.name, m.value) for m in dlpack.DLDeviceType] == [(m.name, m.value) for m in torch.utils.dlpack.DLDeviceType]
    assert litnn.ones(2).__dlpack_device__() == torch.ones(2).__dlpack_device__()

def test_numpy_zero_copy_both_ways():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = litnn.from_dlpack(a)
    t[0, 0] = 9.; a[1, 1] = -2.
    assert a[0, 0] == 9. and t[1, 1].item() == -2.
    b = np.from_dlpack(t)
    b[0, 2] = 5.
    assert t[0, 2].item() == 5.

@pytest.mark.parametrize('dt', ['float32', 'float64', 'float16', 'int64', 'int32', 'int8', 'uint8', 'bool'])
def test_torch_both_ways(dt):
    src = torch.arange(-3, 3).to(getattr(torch, dt))
    l = litnn.from_dlpack(src)
    assert str(l.dtype) == str(src.dtype).replace('torch', 'litnn') and l.tolist() == src.tolist()
    if dt != 'bool':
        l[0] = 1; assert src[0].item() == 1             # one memory
    back = torch.from_dlpack(litnn.arange(-3, 3).to(getattr(litnn, dt)))
    assert back.dtype == src.dtype and back.tolist() == torch.arange(-3, 3).to(src.dtype).tolist()
    x = litnn.zeros(3, dtype=getattr(litnn, dt)); y = torch.from_dlpack(x)
    y[1] = 1; assert x[1].item() == 1

def test_bfloat16_crosses_both_ways_as_torch():
    "DLPack's bfloat16 code (kDLBfloat), which numpy lacks: litnn writes and reads it itself, zero-copy, capsules too."
    src = torch.tensor([1.5, -2.25, 3.], dtype=torch.bfloat16)
    for l in (litnn.from_dlpack(src), litnn.from_dlpack(torch.utils.dlpack.to_dlpack(src)), litnn.from_dlpack(src.__dlpack__(max_version=(1, 0)))):
        assert l.dtype is litnn.bfloat16 and l.tolist() == src.tolist()
        l[0] = 8.; assert src[0].item() == 8.; src[0] = 1.5     # one memory
    x = litnn.tensor([3.5, 1., -0.5], dtype=litnn.bfloat16)
    for t in (torch.from_dlpack(x), torch.utils.dlpack.from_dlpack(dlpack.to_dlpack(x)), litnn.from_dlpack(x)):
        assert str(t.dtype).endswith('bfloat16') and t.tolist() == [3.5, 1., -0.5]
        t[1] = 2.; assert x[1].item() == 2.; x[1] = 1.

def test_conj_and_sparse_refused_like_torch():
    for lib in (torch, litnn):
        with pytest.raises(BufferError, match="Can't export tensors with the conjugate bit set"): lib.conj(lib.tensor([1 + 1j])).__dlpack__()
        with pytest.raises(BufferError, match="Can't export tensors with layout other than torch.strided"):
            lib.sparse_coo_tensor([[0]], [1.], size=(1,)).__dlpack__()

def test_strided_and_0d():
    t = torch.arange(12.).reshape(3, 4)[:, ::2]
    l = litnn.from_dlpack(t)
    assert l.stride() == t.stride() and l.tolist() == t.tolist() and not l.is_contiguous()
    lt = litnn.arange(12.).reshape(3, 4).t()
    tt = torch.from_dlpack(lt)
    assert tt.stride() == lt.stride() == (1, 4) and tt.tolist() == lt.tolist()
    z = litnn.from_dlpack(torch.tensor(2.5))
    assert z.shape == () and z.item() == 2.5 and torch.from_dlpack(litnn.tensor(3)).shape == ()

def test_requires_grad_refused_like_torch():
    for lib in (torch, litnn):
        w = lib.ones(2, requires_grad=True)
        with pytest.raises(BufferError, match="Can't export tensors that require gradient, use tensor.detach()"): w.__dlpack__()
        assert type(lib.utils.dlpack.to_dlpack(w)).__name__ == 'PyCapsule'    # the C function does not check
    with pytest.raises(BufferError): torch.from_dlpack(litnn.ones(2, requires_grad=True))
    with pytest.raises(AssertionError, match='stream should be None on cpu'): litnn.ones(2).__dlpack__(stream=1)

def test_capsule_consumed_once():
    for lib in (torch, litnn):
        x = lib.tensor([1, 2, 3]); c = lib.utils.dlpack.to_dlpack(x)
        y = lib.from_dlpack(c); y[0] = 7
        assert x.tolist() == [7, 2, 3]
        with pytest.raises(RuntimeError, match='can be consumed only once'): lib.from_dlpack(c)
    x = torch.tensor([1., 2.]); l = litnn.from_dlpack(torch.utils.dlpack.to_dlpack(x)); l[1] = 5.
    assert x.tolist() == [1., 5.]                        # a torch capsule into litnn: shared and writable
    x = litnn.tensor([1., 2.]); t = torch.from_dlpack(dlpack.to_dlpack(x)); t[1] = 5.
    assert x.tolist() == [1., 5.]
    with pytest.raises(RuntimeError, match='invalid capsule'): litnn.from_dlpack(3)


@pytest.mark.parametrize('make', [lambda m: m.arange(3.), lambda m: m.ones(2, requires_grad=True),
                                  lambda m: m.eye(2).to_sparse()])
def test_cuda_array_interface_absent_off_the_gpu_as_torch(make):
    "On the CPU (dense, requiring grad, sparse) torch's property raises AttributeError, so `hasattr` is False."
    torch = pytest.importorskip('torch')
    for m in (litnn, torch): assert not hasattr(make(m), '__cuda_array_interface__')
    with pytest.raises(AttributeError) as l: make(litnn).__cuda_array_interface__
    with pytest.raises(AttributeError) as t: make(torch).__cuda_array_interface__
    assert str(l.value).replace('litnn', 'torch') == str(t.value)


def test_python2_conversion_names_as_torch():
    "torch's Tensor keeps __long__ and __nonzero__ (int and bool)."
    torch = pytest.importorskip('torch')
    for v in (3.7, -2.0, 0):
        assert litnn.tensor(v).__long__() == torch.tensor(v).__long__()
        assert litnn.tensor(v).__nonzero__() == torch.tensor(v).__nonzero__()
    with pytest.raises(RuntimeError, match='more than one value is ambiguous'): litnn.ones(2).__nonzero__()
