"""`litnn.types` (reference/types) against `torch.types` of torch 2.13: the same names, each alias the union of the
same kinds of classes (litnn's where torch's are torch's)."""
import typing
import pytest
import litnn
torch = pytest.importorskip('torch')
import litnn.types as L
import torch.types as T

LEFT_OUT = {'DispatchKey', '_dispatchkey', '_qscheme'}     # torch's C++ dispatcher keys and quantization schemes

def test_same_public_and_private_names():
    own = lambda m: {n for n in vars(m) if not n.startswith('__') and n not in ('annotations',)}
    assert own(T) - own(L) == LEFT_OUT
    assert L.__all__ == T.__all__

@pytest.mark.parametrize('name', ['Number', 'Device', 'FileLike', '_size', '_symsize', '_TensorOrTensors', '_TensorOrOptionalTensors',
                                  'IntLikeType', 'FloatLikeType', 'BoolLikeType', 'PySymType'])
def test_alias_means_the_same_types(name):
    assert str(getattr(L, name)).replace('litnn', 'torch') == str(getattr(T, name))

def test_tuples_and_classes():
    assert L._Number == T._Number == (int, float, bool)
    assert [c.__name__ for c in L.py_sym_types] == [c.__name__ for c in T.py_sym_types]
    assert L._dtype is litnn.dtype and L._device is litnn.device and L.Tensor is litnn.Tensor
    storage_methods = lambda c: sorted(n for n in vars(c) if not n.startswith('__') or n == '__deepcopy__')
    assert storage_methods(L.Storage) == storage_methods(T.Storage)
    with pytest.raises(NotImplementedError): L.Storage().nbytes()
    assert isinstance(litnn.device('cpu'), typing.get_args(L.Device)) and litnn.types is L
