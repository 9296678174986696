"Behaviours third-party training programs rely on, each checked against real torch on the same inputs."
import pytest, torch, litnn


def _types(T):
    "What a program asks of TorchScript's type classes: names, annotations, containers, subtyping, tensor profiles."
    l = T.ListType(T.IntType.get())
    simple = [n for n in ('IntType', 'FloatType', 'BoolType', 'StringType', 'NoneType', 'AnyType', 'NumberType', 'DeviceObjType',
                          'ComplexType', 'StreamObjType', 'SymIntType', 'SymBoolType', 'PyObjectType', 'TensorType')]
    out = [(n, str(getattr(T, n).get()), repr(getattr(T, n).get()), getattr(T, n).get().kind(), getattr(T, n).get().annotation_str,
            getattr(T, n).get() is getattr(T, n).get(), getattr(T, n).__mro__[1].__name__) for n in simple]
    out += [str(l), l.kind(), str(l.getElementType()), [str(t) for t in l.containedTypes()], l == T.ListType(T.IntType.get()),
            l != T.ListType(T.FloatType.get()), str(T.ListType.ofInts()), str(T.ListType.ofTensors()),
            str(T.OptionalType(T.TensorType.get())), T.OptionalType(T.TensorType.get()).kind(),
            str(T.TupleType([T.IntType.get(), T.TensorType.get()])), [str(t) for t in T.TupleType([T.IntType.get()]).elements()],
            str(T.DictType(T.StringType.get(), T.TensorType.get())), str(T.DictType(T.StringType.get(), T.IntType.get()).getValueType()),
            str(T.UnionType([T.IntType.get(), T.FloatType.get()])),
            T.IntType.get().isSubtypeOf(T.NumberType.get()), T.IntType.get().isSubtypeOf(T.AnyType.get()),
            T.TensorType.get().isSubtypeOf(T.OptionalType(T.TensorType.get())), T.IntType.get().isSubtypeOf(T.FloatType.get()),
            T.IntType.get().containedTypes(), T.IntType.get().is_interface_type()]
    g = T.TensorType.get()
    out += [g.sizes(), g.strides(), g.dim(), g.dtype(), g.requires_grad(), g.undefined()]
    t = T.TensorType.create_from_tensor(T.zeros(2, 3, requires_grad=True))
    out += [str(t), t.sizes(), t.strides(), t.dim(), str(t.dtype()).split('.')[-1], t.scalarType(), str(t.device()), t.requires_grad(),
            t.varyingSizes(), T.TensorType.create_from_tensor(T.zeros(4, dtype=T.int64)).scalarType()]
    return out


def test_jit_types_as_torch():
    assert _types(litnn) == _types(torch)


@pytest.mark.parametrize('make', [lambda T: T.IntType(), lambda T: T.TensorType(), lambda T: T.Type(), lambda T: T.ListType(),
                                  lambda T: T.ListType(3), lambda T: T.OptionalType('int'), lambda T: hash(T.IntType.get()),
                                  lambda T: T.IntType.get().isSubtypeOf(3)])
def test_jit_types_refuse_as_torch(make):
    with pytest.raises(TypeError) as e: make(torch)
    with pytest.raises(TypeError) as f: make(litnn)
    assert str(f.value).replace('litnn', 'torch') == str(e.value)


def test_annotation_import():
    "open_clip's hf_model: `from torch import TensorType` for annotations."
    from litnn import TensorType
    def forward(x: TensorType): return x
    assert forward.__annotations__['x'] is litnn.TensorType
