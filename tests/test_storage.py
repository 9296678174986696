"""litnn.storage (nbs/reference/torch/storage) side by side with torch.storage: UntypedStorage, TypedStorage and its
deprecation warning, the legacy FloatStorage-style names, Tensor.untyped_storage/storage/set_/is_set_to, sharing
between views, torch.from_file and torch.is_storage."""
import os, warnings
import numpy as np
import pytest
import litnn
torch = pytest.importorskip('torch')
import torch.storage


def norm(v):
    "A value as text, with litnn's names read as torch's."
    return str(v).replace('litnn', 'torch')


def quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return fn()


def test_paths():
    for n in ('UntypedStorage', 'TypedStorage'):
        assert getattr(litnn, n).__module__ == getattr(torch, n).__module__.replace('torch', 'litnn')
        assert getattr(litnn.storage, n) is getattr(litnn, n)
    for n in ('ByteStorage', 'CharStorage', 'ShortStorage', 'IntStorage', 'LongStorage', 'HalfStorage', 'FloatStorage',
              'DoubleStorage', 'BoolStorage', 'BFloat16Storage'):
        assert getattr(litnn, n).__module__ == getattr(torch, n).__module__.replace('torch', 'litnn')
        assert norm(getattr(litnn, n).dtype) == str(quiet(lambda: getattr(torch, n).dtype))
    assert litnn.from_file.__name__ == 'from_file'


def untyped_story(T):
    t = T.arange(6, dtype=T.float32)
    u = t.untyped_storage()
    out = [repr(u), type(u).__name__, u.nbytes(), u.size(), len(u), u[0], u[7], u[-1], u.tolist(), u.element_size(),
           str(u.device), u.is_shared(), u.type(), u.is_sparse]
    w = u[4:8]
    out += [type(w).__name__, w.data_ptr() - u.data_ptr(), w.tolist()]
    w[0] = 9
    out += [u[4], t[1].item()]
    u[0:4] = 5
    u[1] = 300
    out += [u[0], u[1], t[0].item()]
    c = u.clone()
    out += [c.data_ptr() != u.data_ptr(), c.tolist() == u.tolist(), type(c).__name__]
    c.fill_(0)
    out += [c.tolist()[:4], u[0], c.copy_(u).tolist() == u.tolist()]
    r = T.UntypedStorage([1, 2, 3])
    out += [r.tolist(), r.resize_(5) is r, r.tolist()[:3], r.nbytes(), r.resize_(2) is r, r.tolist()]
    out += [repr(T.UntypedStorage(0)), T.UntypedStorage(3).nbytes(), repr(T.UntypedStorage(2, device='meta')),
            repr(T.zeros(2, device='meta').untyped_storage()), T.zeros(2, device='meta').untyped_storage().nbytes()]
    out += [T.tensor(3.).untyped_storage().nbytes(), T.zeros(2, dtype=T.float64).untyped_storage().nbytes()]
    return out


def test_untyped_storage():
    a, b = untyped_story(litnn), untyped_story(torch)
    assert [norm(v) for v in a] == [norm(v) for v in b]


def test_untyped_errors():
    for T in (litnn, torch):
        u = T.arange(6, dtype=T.float32).untyped_storage()
        with pytest.raises(IndexError, match='index 24 out of range for storage of size 24'): u[24]
        with pytest.raises(IndexError, match='index -1 out of range for storage of size 24'): u[-25]
        with pytest.raises(TypeError, match=f"can't index a {T.__name__}.UntypedStorage with str"): u['a']
        with pytest.raises(RuntimeError, match='can only set storage content with a int types, but got list instead'): u[0:2] = [1, 2]
        with pytest.raises(RuntimeError, match='size does not match, self was 4 bytes but src was 24 bytes'):
            T.UntypedStorage(4).copy_(u)


def test_views_share_one_storage():
    for T in (litnn, torch):
        t = T.arange(12, dtype=T.float32)
        ptr = t.untyped_storage().data_ptr()
        views = [t[3:], t.view(3, 4), t.view(3, 4).T, t.view(3, 4)[1:, ::2], t.reshape(2, 6), t.unsqueeze(0), t[5]]
        assert all(v.untyped_storage().data_ptr() == ptr for v in views)
        assert all(v.untyped_storage().nbytes() == 48 for v in views)
        assert T.arange(12.).untyped_storage().data_ptr() != ptr
        for i, byte in enumerate(np.float32(7).tobytes()): t.view(3, 4)[1:].untyped_storage()[i] = byte
        assert t[0].item() == 7
        assert t.clone().untyped_storage().data_ptr() != ptr


def typed_story(T):
    torch.storage._reset_warn_typed_storage_removal()
    litnn.storage._reset_warn_typed_storage_removal()
    t = T.arange(6, dtype=T.float32)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        s = t.storage()
        first = [(w.category.__name__, str(w.message)) for w in caught]
        s.size()
        again = len(caught)
    out = [first, again, s.data_ptr() == t.untyped_storage().data_ptr()]
    out += quiet(lambda: [repr(s), type(s).__name__, str(s.dtype), s.size(), len(s), s[1], s[-1], s.tolist(),
                          s.element_size(), s.nbytes(), str(s.device), s.type(), s.is_shared(), type(s.untyped()).__name__,
                          s.untyped().nbytes(), list(s)])
    def writes():
        s[1] = 5.
        r = [t[1].item()]
        s.fill_(2.)
        r += [t.tolist()]
        c = s.clone()
        r += [type(c).__name__, str(c.dtype), c.data_ptr() != s.data_ptr(), c.tolist()]
        r += [s.resize_(3), s.size(), tuple(t.shape)]
        r += [T.TypedStorage(3).size(), str(T.TypedStorage(3).dtype), T.TypedStorage([1., 2.], dtype=T.float64).tolist(),
              T.TypedStorage(2, dtype=T.int64).nbytes(), T.TypedStorage([True, False], dtype=T.bool).tolist(),
              repr(T.TypedStorage([1, 2], dtype=T.int32))]
        f = T.FloatStorage([1, 2])
        r += [type(f).__name__, str(f.dtype), f.tolist(), repr(T.FloatStorage(2)).splitlines()[-1], T.DoubleStorage(1).type(),
              T.LongStorage([3]).tolist(), repr(T.zeros(0).storage()), T.zeros(3, dtype=T.int64).storage().type()]
        return r
    out += quiet(writes)
    return out


def test_typed_storage():
    a, b = typed_story(litnn), typed_story(torch)
    assert [norm(v) for v in a] == [norm(v) for v in b]


def test_typed_errors_and_warning_text():
    for T in (litnn, torch):
        s = quiet(lambda: T.arange(6.).storage())
        with pytest.raises(RuntimeError, match='slices are only supported in UntypedStorage.__getitem__'): quiet(lambda: s[0:2])
        with pytest.raises(IndexError, match='index 7 out of range for storage of size 6'): quiet(lambda: s[7])
        with pytest.raises(RuntimeError, match='Only child classes of _LegacyStorage can be instantiated'):
            quiet(lambda: T.storage._LegacyStorage(2))
    for T in (litnn, torch):
        T.storage._set_always_warn_typed_storage_removal(True)
        try:
            with pytest.warns(UserWarning, match=r"TypedStorage is deprecated\. It will be removed in the future and "
                              r"UntypedStorage will be the only storage class\. This should only matter to you if you are "
                              r"using storages directly\.  To access UntypedStorage directly, use tensor\.untyped_storage\(\) "
                              r"instead of tensor\.storage\(\)"):
                T.zeros(2).storage()
        finally:
            T.storage._set_always_warn_typed_storage_removal(False)


def set_story(T):
    out = []
    base = T.arange(6.)
    x = T.zeros(3)
    v = x._version
    r = x.set_(base.untyped_storage(), 1, (2, 2), (2, 1))
    out += [r is x, x.tolist(), x.storage_offset(), tuple(x.stride()), x._version - v,
            x.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()]
    base[3] = 30.
    out += [x.tolist(), x.is_contiguous()]
    x[0, 0] = -1.
    out += [base[1].item()]
    out += [T.zeros(3).set_(base.untyped_storage()).tolist(), T.zeros(3).set_(base.untyped_storage(), 2, (3,)).tolist()]
    out += [quiet(lambda: T.zeros(3).set_(base.storage(), 2, (2,)).tolist()), quiet(lambda: T.zeros(3).set_(base.storage()).tolist())]
    e = T.zeros(3).set_()
    out += [e.tolist(), tuple(e.shape), e.untyped_storage().nbytes()]
    y = T.zeros(1)
    y.set_(base)
    out += [y.is_set_to(base), base.is_set_to(y), tuple(y.shape), y.data_ptr() == base.data_ptr()]
    y[0] = 100.
    out += [base[0].item()]
    z = T.zeros(1).set_(base.untyped_storage(), 0, (6,), (1,))
    out += [z.is_set_to(base), base[1:3].is_set_to(base), base.is_set_to(base), base.view(2, 3).is_set_to(base),
            T.zeros(0).is_set_to(T.zeros(0)), base.is_set_to(base.clone())]
    i = T.zeros(2, dtype=T.int64).set_(T.arange(4).untyped_storage(), 1, (3,))
    out += [i.tolist(), str(i.dtype)]
    u8 = T.zeros(2, dtype=T.uint8).set_(T.tensor([1.], dtype=T.float32).untyped_storage())
    out += [u8.tolist()]
    return out


def test_set_and_is_set_to():
    a, b = set_story(litnn), set_story(torch)
    assert [norm(v) for v in a] == [norm(v) for v in b]


def test_set_errors():
    for T in (litnn, torch):
        with pytest.raises(RuntimeError, match="Could not set tensor of type double to a tensor of type float"):
            T.zeros(2).set_(T.zeros(2, dtype=T.float64))
        with pytest.raises(RuntimeError, match="Expected a Storage of type float or an UntypedStorage, but got type Double for argument 1 'storage'"):
            quiet(lambda: T.zeros(2).set_(T.zeros(2, dtype=T.float64).storage()))
        with pytest.raises(TypeError, match=r"set_\(\) received an invalid combination of arguments - got \(((torch|litnn).storage.)?UntypedStorage, int\)"):
            T.zeros(2).set_(T.zeros(2).untyped_storage(), 1)
        for bad in ([1.], 3, 'a'):           # neither a tensor nor a storage
            with pytest.raises(TypeError, match=rf"set_\(\) received an invalid combination of arguments - got \({type(bad).__name__}\)"):
                T.zeros(2).set_(bad)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation."):
            T.zeros(2, requires_grad=True).set_(T.zeros(2))


def test_is_storage():
    for T in (litnn, torch):
        t = T.zeros(2)
        got = [T.is_storage(t.untyped_storage()), quiet(lambda: T.is_storage(t.storage())), T.is_storage(t),
               T.is_storage([1]), T.is_storage(T.UntypedStorage(1)), quiet(lambda: T.is_storage(T.FloatStorage(1)))]
        assert got == [True, True, False, False, True, True]


def test_from_file(tmp_path):
    def story(T, path):
        np.arange(4, dtype=np.float32).tofile(path)
        out = []
        shared = T.from_file(path, shared=True, size=4)
        out += [shared.tolist(), norm(shared.dtype), tuple(shared.shape)]
        shared[0] = 5.
        out += [np.fromfile(path, np.float32).tolist()]
        private = T.from_file(path, shared=False, size=2, dtype=T.float32)
        private[1] = 7.
        out += [private.tolist(), np.fromfile(path, np.float32).tolist()]
        out += [T.from_file(path, size=1, dtype=T.int32).tolist(), tuple(T.from_file(path).shape),
                tuple(T.from_file(path, shared=True).shape), T.from_file(path, size=2, dtype=T.float64).tolist(),
                T.from_file(path, size=2, requires_grad=True).requires_grad]
        with pytest.raises(RuntimeError) as e: T.from_file(path, shared=False, size=10)
        out.append(str(e.value).replace(str(path), 'PATH'))
        return out
    a = story(litnn, str(tmp_path / 'a.bin'))
    b = story(torch, str(tmp_path / 'b.bin'))
    for T in (litnn, torch):
        with pytest.raises(TypeError, match=r"from_file\(\): argument 'filename' \(position 1\) must be str, not PosixPath"):
            T.from_file(tmp_path / 'a.bin')
    assert a == b


def test_untyped_storage_from_file_as_torch(tmp_path):
    "safetensors' load_file maps its file with UntypedStorage.from_file, slices it and reads each slice with asarray"
    import torch
    path = tmp_path / 'w.bin'
    path.write_bytes(np.arange(6, dtype=np.float32).tobytes() + np.array([7, 8], dtype=np.int64).tobytes())
    got = []
    for L in (litnn, torch):
        s = L.UntypedStorage.from_file(str(path), False, 40)
        w = L.asarray(s[0:24], dtype=L.float32).reshape(2, 3)
        i = L.asarray(s[24:40], dtype=L.int64)
        w[0, 0] = 100.                                    # a private copy (shared=False): the file keeps its bytes
        got.append((s.nbytes(), w.tolist(), i.tolist()))
    assert got[0] == got[1]
    assert np.frombuffer(path.read_bytes()[:4], np.float32)[0] == 0.


def test_safetensors_load_file_through_litnn(tmp_path):
    "safetensors.torch.load_file and safe_open, with litnn standing in for torch (in a subprocess: the alias is global)"
    pytest.importorskip('safetensors')
    import subprocess, sys, textwrap
    code = textwrap.dedent(f'''
        import sys, importlib, importlib.abc, importlib.util, numpy as np
        class Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
            def find_spec(self, name, path, target=None):
                if name == 'torch' or name.startswith('torch.'): return importlib.util.spec_from_loader(name, self)
            def create_module(self, spec): return importlib.import_module('litnn' + spec.name[5:])
            def exec_module(self, module): pass
        sys.meta_path.insert(0, Alias())
        import torch
        from safetensors.torch import save_file, load_file, safe_open
        save_file({{'w': torch.arange(6.).reshape(2, 3), 'i': torch.tensor([1, 2])}}, {str(tmp_path / 'm.safetensors')!r})
        d = load_file({str(tmp_path / 'm.safetensors')!r})
        with safe_open({str(tmp_path / 'm.safetensors')!r}, framework='pt') as f: s = f.get_slice('w')[:, 1:]
        print(type(d['w']).__module__, d['w'].tolist(), d['i'].tolist(), s.tolist())
    ''')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "litnn [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] [1, 2] [[1.0, 2.0], [4.0, 5.0]]"


@pytest.mark.parametrize('how', ['function', 'legacy'])
def test_shared_from_file_creates_and_extends_the_file(tmp_path, how):
    "from_file(shared=True) maps an empty (or short) file after extending it to the size mapped; two maps see each other's writes."
    for lib in (torch, litnn):
        path = str(tmp_path / f'{lib.__name__}.bin')
        open(path, 'wb').close()
        def mapped():
            if how == 'function': return lib.from_file(path, True, 10, dtype=lib.float32)
            return lib.FloatTensor(quiet(lambda: lib.FloatStorage.from_file(path, True, 10)))
        a, b = mapped(), mapped()
        a.fill_(2.5)
        assert os.path.getsize(path) == 40 and b.tolist() == [2.5] * 10
        assert np.fromfile(path, np.float32).tolist() == [2.5] * 10


def test_private_from_file_still_needs_the_bytes(tmp_path):
    for lib in (torch, litnn):
        path = str(tmp_path / f'{lib.__name__}.bin')
        open(path, 'wb').close()
        with pytest.raises(RuntimeError, match='is smaller than the required mapping size <40>'): lib.from_file(path, False, 10, dtype=lib.float32)


@pytest.mark.parametrize('kind', ['typed', 'untyped'])
def test_legacy_constructor_views_a_storage(kind):
    "FloatTensor(storage) / Tensor(storage) view the storage's memory, as torch's new(Storage)."
    for lib in (torch, litnn):
        src = lib.tensor([1., 2., 3.])
        s = quiet(src.storage) if kind == 'typed' else src.untyped_storage()
        for ctor in (lib.FloatTensor, lib.Tensor):
            t = ctor(s)
            assert t.data_ptr() == src.data_ptr() and t.tolist() == [1., 2., 3.]
        with pytest.raises(RuntimeError, match='Expected a Storage of type'): lib.FloatTensor(quiet(lambda: lib.IntStorage(2)))


@pytest.mark.parametrize('cast', ['double', 'float', 'half', 'long', 'int', 'short', 'char', 'byte', 'bool', 'bfloat16',
                                  'complex_double', 'complex_float'])
def test_typed_storage_casts(cast):
    "storage.float() and kin: a new storage of that dtype holding the values converted."
    got = []
    for lib in (torch, litnn):
        s = quiet(lambda: lib.IntStorage([-1, 0, 1, 2, 3, 4]))
        c = quiet(lambda: getattr(s, cast)())
        got.append((quiet(c.type).replace('litnn', 'torch'), norm(c.dtype), quiet(c.tolist), c.data_ptr() != s.data_ptr()))
    assert got[1] == got[0]


def test_storage_sizeof_counts_its_bytes():
    "sys.getsizeof of a storage grows with the bytes it holds, as torch's __sizeof__."
    for lib in (torch, litnn):
        typed = lambda n: quiet(lambda: lib.randn(n).storage())
        untyped = lambda n: lib.randn(n).to(lib.uint8).untyped_storage()
        assert [typed(n).__sizeof__() - typed(0).__sizeof__() for n in (10, 100)] == [40, 400]
        assert [untyped(n).__sizeof__() - untyped(0).__sizeof__() for n in (10, 100)] == [10, 100]


@pytest.mark.parametrize('cls,args', [('ByteStorage', ([1, 2, 3, 4],)), ('ShortStorage', ([1, 2, 3, 4], 'big')),
                                      ('IntStorage', ([1, 2, 3, 4], 'little')), ('FloatStorage', ([0x40, 0x10, 0, 0], 'big')),
                                      ('BoolStorage', ([0, 1, 2, 3, 4, 5, 0x10, 0x40], 'big')), ('ShortStorage', ([1, 2, 3, 4, 5, 6], 'little', 1, 2)),
                                      ('ComplexFloatStorage', ([0, 0, 0x80, 0x3f, 0, 0, 0, 0x40], 'little'))])
def test_legacy_storage_from_buffer(cls, args):
    "FloatStorage.from_buffer and kin: the buffer's bytes read in the byte order given, as torch (bools: any nonzero byte)."
    got = []
    for lib in (torch, litnn):
        s = quiet(lambda: getattr(lib, cls).from_buffer(bytearray(args[0]), *args[1:]))
        got.append((quiet(s.tolist), quiet(s.size), norm(s.dtype), isinstance(s, getattr(lib, cls)), isinstance(s, lib.ByteStorage) == (cls == 'ByteStorage')))
    assert got[1] == got[0]


@pytest.mark.parametrize('kw', [dict(dtype='int16', byte_order='big'), dict(dtype='bool', byte_order='little'), dict(dtype='uint8')])
def test_untyped_storage_from_buffer(kw):
    got = []
    for lib in (torch, litnn):
        k = {**kw, 'dtype': getattr(lib, kw['dtype'])}
        got.append(lib.UntypedStorage.from_buffer(bytearray([0, 1, 2, 0]), **k).tolist())
    assert got[1] == got[0]


@pytest.mark.parametrize('call', [lambda lib: lib.UntypedStorage.from_buffer(bytearray([1, 2, 3]), dtype=lib.int16, byte_order='big'),
                                  lambda lib: lib.UntypedStorage.from_buffer(bytearray([1, 2, 3, 4]), dtype=lib.int16),
                                  lambda lib: lib.UntypedStorage.from_buffer(bytearray([1, 2, 3, 4]), byte_order='little'),
                                  lambda lib: lib.UntypedStorage.from_buffer(bytearray([1, 2]), dtype=lib.int16, byte_order='middle'),
                                  lambda lib: lib.FloatStorage.from_buffer(bytearray([1, 2, 3, 4]), 'little', dtype=lib.float)])
def test_from_buffer_errors(call):
    with pytest.raises(Exception) as te: quiet(lambda: call(torch))
    with pytest.raises(te.type) as le: quiet(lambda: call(litnn))
    assert str(le.value) == str(te.value)


@pytest.mark.parametrize('dtype', ['float64', 'float32', 'float16', 'bfloat16', 'int64', 'int32', 'int16', 'int8', 'uint8',
                                   'bool', 'complex128', 'complex64'])
def test_untyped_storage_byteswap(dtype):
    "UntypedStorage.byteswap(dtype) reverses each element's bytes in place (each part of a complex number)."
    got = []
    for lib in (torch, litnn):
        s = quiet(lambda: lib.storage.TypedStorage(list(range(16)), dtype=lib.uint8))._untyped_storage
        s.byteswap(getattr(lib, dtype))
        got.append(s.tolist())
    assert got[1] == got[0]
    for lib in (torch, litnn):
        with pytest.raises(RuntimeError, match='the length of data is not a multiple of 2'): lib.UntypedStorage(5).byteswap(lib.int16)


@pytest.mark.parametrize('dtype', ['int16', 'float32', 'float64', 'complex64', 'bool', 'uint8'])
def test_tensor_of_a_storage(dtype):
    "torch.tensor(storage, dtype=): a tensor over the storage's memory; a TypedStorage of another dtype is refused."
    got = []
    for lib in (torch, litnn):
        d = getattr(lib, dtype)
        a = lib.arange(6).to(d)
        typed = quiet(lambda: lib.tensor(quiet(a.storage), dtype=d))
        untyped = lib.tensor(a.untyped_storage(), dtype=d)
        got.append((typed.tolist(), untyped.tolist(), typed.data_ptr() == a.data_ptr(), untyped.data_ptr() == a.data_ptr()))
        other = lib.float64 if dtype != 'float64' else lib.float32
        with pytest.raises(RuntimeError, match='Expected a Storage of type'): lib.tensor(quiet(a.storage), dtype=other)
    assert got[1] == got[0]


@pytest.mark.parametrize('args', [[], [0], [100], [[1, 2, 3, 4, 5, 6]]])
def test_meta_storages(args):
    "Storages on the meta device: a size and no bytes; reading an element or copying out is NotImplementedError, as torch."
    for lib in (torch, litnn):
        for s, check in ((lib.UntypedStorage(*args, device='meta'), lib.UntypedStorage(*args)),
                         (quiet(lambda: lib.TypedStorage(*args, dtype=lib.float32, device='meta')), quiet(lambda: lib.TypedStorage(*args, dtype=lib.float32)))):
            assert s.device.type == 'meta' and s.nbytes() == check.nbytes() and quiet(s.size) == quiet(check.size) and s.data_ptr() == 0
            with pytest.raises(NotImplementedError, match="Not available for 'meta' device type"): quiet(lambda: s[0])
            with pytest.raises(NotImplementedError, match='Cannot copy out of meta tensor'): quiet(s.cpu)
        t = quiet(lambda: lib.TypedStorage([1, 2, 3, 4], device='meta', dtype=lib.float32))
        quiet(lambda: t.resize_(10))
        assert quiet(t.size) == 10
