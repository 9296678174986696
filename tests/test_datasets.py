"""litnn.datasets: the bundled digits (contents, split, packaging), the IDX reader and writer (round trips,
hand-made files read by the spec, damaged files refused with the file's name), and MNIST read from a folder."""
import gzip, struct, subprocess, sys
from pathlib import Path

import numpy as np
import pytest

import litnn
from litnn.datasets import Digits, FashionMNIST, MNIST, load_digits, read_idx, write_idx
from litnn.utils.data import DataLoader

torch = pytest.importorskip('torch')
ROOT = Path(__file__).resolve().parent.parent

FIRST_DIGIT = [[0, 0, 5, 13, 9, 1, 0, 0], [0, 0, 13, 15, 10, 15, 5, 0], [0, 3, 15, 2, 0, 11, 8, 0], [0, 4, 12, 0, 0, 8, 8, 0],
               [0, 5, 8, 0, 0, 9, 8, 0], [0, 4, 11, 0, 1, 12, 7, 0], [0, 2, 14, 5, 10, 12, 0, 0], [0, 0, 6, 13, 10, 0, 0, 0]]
CLASS_COUNTS = [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]   # the counts scikit-learn documents


# --- the bundled digits ---------------------------------------------------------------------------

def test_load_digits_contents():
    x, y = load_digits()
    assert (x.shape, x.dtype, y.shape, y.dtype) == ((1797, 1, 8, 8), litnn.float32, (1797,), litnn.int64)
    assert (x[0, 0] * 16).tolist() == FIRST_DIGIT and y[:3].tolist() == [0, 1, 2] and y[-1].item() == 8
    assert np.bincount(y.numpy()).tolist() == CLASS_COUNTS
    a = x.numpy()
    assert a.min() == 0 and a.max() == 1 and np.array_equal(a * 16, np.round(a * 16))   # ink counts 0..16, scaled
    assert abs(float(a.mean()) * 16 - 4.884) < 1e-3                                    # the data set's mean pixel


def test_digits_split():
    train, test = Digits(), Digits(train=False)
    assert (len(train), len(test)) == (1437, 360)
    x, y = load_digits()
    rows = lambda ds: sorted(map(bytes, np.concatenate([ds.tensors[0].numpy().reshape(len(ds), 64) * 16,
                                                        ds.tensors[1].numpy()[:, None]], 1).astype(np.uint8)))
    everything = sorted(map(bytes, np.concatenate([x.numpy().reshape(-1, 64) * 16, y.numpy()[:, None]], 1).astype(np.uint8)))
    assert sorted(rows(train) + rows(test)) == everything           # the two sides make up the whole set
    assert Digits(train=False).tensors[1].tolist() == test.tensors[1].tolist()
    litnn.manual_seed(123)                                          # the global seed does not move the split
    assert Digits(train=False).tensors[0].tolist() == test.tensors[0].tolist()
    other = Digits(train=False, seed=1)
    assert other.tensors[0].tolist() != test.tensors[0].tolist()
    assert len(Digits(test_size=0.5)) == 898 and len(Digits(train=False, test_size=0.5)) == 899
    assert all(c > 20 for c in np.bincount(test.tensors[1].numpy()))
    with pytest.raises(ValueError, match="test_size should be a fraction between 0 and 1, got 1.5"): Digits(test_size=1.5)


def test_digits_through_a_loader():
    ds = Digits()
    loader = DataLoader(ds, batch_size=100, shuffle=True, generator=litnn.Generator().manual_seed(0))
    shapes = [(xb.shape, yb.shape, xb.dtype, yb.dtype) for xb, yb in loader]
    assert len(shapes) == len(loader) == 15
    assert shapes[0] == ((100, 1, 8, 8), (100,), litnn.float32, litnn.int64) and shapes[-1][0] == (37, 1, 8, 8)
    x, y = ds[5]
    assert x.shape == (1, 8, 8) and y.shape == ()


def test_digits_file_is_packaged(tmp_path):
    "setuptools' own file list (what sdist and wheel take) holds the data file: MANIFEST.in puts it there."
    subprocess.run([sys.executable, 'setup.py', '-q', 'egg_info', '-e', str(tmp_path)], cwd=ROOT, check=True,
                   capture_output=True)
    sources = (tmp_path/'litnn.egg-info'/'SOURCES.txt').read_text().split()
    assert 'litnn/data/digits.csv.gz' in sources and 'settings.ini' in sources


# --- IDX ------------------------------------------------------------------------------------------

@pytest.mark.parametrize('dtype', ['uint8', 'int8', 'int16', 'int32', 'float32', 'float64'])
@pytest.mark.parametrize('name', ['a.idx', 'a.idx.gz'])
@pytest.mark.parametrize('shape', [(), (0,), (7,), (3, 5), (2, 3, 4), (1, 2, 1, 2)])
def test_idx_round_trip(tmp_path, dtype, name, shape):
    rng = np.random.default_rng(0)
    info = np.iinfo(dtype) if dtype[0] in 'ui' else None
    a = (rng.integers(info.min, info.max, shape, endpoint=True) if info else rng.standard_normal(shape) * 1e3).astype(dtype)
    write_idx(tmp_path/name, a)
    t = read_idx(tmp_path/name)
    assert str(t.dtype) == f'litnn.{dtype}' and t.shape == shape and np.array_equal(t.numpy(), a)
    assert (gzip.decompress((tmp_path/name).read_bytes()) if name.endswith('.gz') else (tmp_path/name).read_bytes())[2] == \
        {'uint8': 8, 'int8': 9, 'int16': 11, 'int32': 12, 'float32': 13, 'float64': 14}[dtype]


def test_idx_write_from_tensor(tmp_path):
    t = litnn.tensor([[1, -2], [3, 4]], dtype=litnn.int32)
    write_idx(tmp_path/'t', t)
    assert read_idx(tmp_path/'t').tolist() == [[1, -2], [3, 4]]
    write_idx(tmp_path/'g', litnn.ones(2, requires_grad=True))
    assert read_idx(tmp_path/'g').tolist() == [1., 1.]


def test_idx_reads_hand_made_files(tmp_path):
    "Files built byte by byte from the format's description, as MNIST's are: big-endian sizes and elements."
    (tmp_path/'labels').write_bytes(bytes([0, 0, 8, 1]) + struct.pack('>I', 4) + bytes([5, 0, 4, 1]))
    (tmp_path/'i32').write_bytes(bytes([0, 0, 0x0C, 2]) + struct.pack('>2I', 2, 2) + struct.pack('>4i', 1, -2, 70000, -70000))
    (tmp_path/'f32.gz').write_bytes(gzip.compress(bytes([0, 0, 0x0D, 1]) + struct.pack('>I', 3) + struct.pack('>3f', 0.5, -1.25, 3e8)))
    (tmp_path/'i16').write_bytes(bytes([0, 0, 0x0B, 1]) + struct.pack('>I', 2) + struct.pack('>2h', -300, 300))
    assert read_idx(tmp_path/'labels').tolist() == [5, 0, 4, 1]
    assert read_idx(tmp_path/'i32').tolist() == [[1, -2], [70000, -70000]]
    assert read_idx(tmp_path/'f32.gz').tolist() == [0.5, -1.25, 3e8] and read_idx(tmp_path/'f32.gz').dtype == litnn.float32
    assert read_idx(tmp_path/'i16').tolist() == [-300, 300]
    write_idx(tmp_path/'back', read_idx(tmp_path/'i32'))
    assert (tmp_path/'back').read_bytes() == (tmp_path/'i32').read_bytes()


def test_idx_compression_told_by_content(tmp_path):
    write_idx(tmp_path/'packed.gz', np.arange(3, dtype=np.uint8))
    (tmp_path/'packed').write_bytes((tmp_path/'packed.gz').read_bytes())                    # gzip data, plain name
    (tmp_path/'plain.gz').write_bytes(gzip.decompress((tmp_path/'packed.gz').read_bytes()))  # plain data, .gz name
    assert read_idx(tmp_path/'packed').tolist() == read_idx(tmp_path/'plain.gz').tolist() == [0, 1, 2]


@pytest.mark.parametrize('content,message', [
    (b'', "not an IDX file: magic number missing"),
    (b'\x00\x00', "not an IDX file: magic number 00 00,"),
    (b'\x01\x00\x08\x01' + bytes(5), "not an IDX file: magic number 01 00 08 01"),
    (b'\x00\x00\x0a\x01' + bytes(5), "not an IDX file: magic number 00 00 0a 01"),
    (b'\x89PNG\r\n\x1a\n', "not an IDX file: magic number 89 50 4e 47"),
    (b'\x00\x00\x08\x03\x00\x00\x00\x02', "truncated IDX header: rank 3 needs 16 bytes, the file has 8"),
    (bytes([0, 0, 8, 2, 0, 0, 0, 2, 0, 0, 0, 3]) + bytes(5), "truncated: an IDX array of shape (2, 3) and type uint8 has 6 bytes of data, the file has 5"),
    (bytes([0, 0, 0x0E, 1, 0, 0, 0, 2]) + bytes(15), "truncated: an IDX array of shape (2,) and type float64 has 16 bytes of data, the file has 15"),
    (bytes([0, 0, 8, 1, 0, 0, 0, 2]) + bytes(3), "too long: an IDX array of shape (2,) and type uint8 has 2 bytes of data, the file has 3"),
])
def test_idx_damaged_files(tmp_path, content, message):
    for path, data in [(tmp_path/'f-idx1-ubyte', content), (tmp_path/'f-idx1-ubyte.gz', gzip.compress(content))]:
        path.write_bytes(data)
        with pytest.raises(ValueError) as e: read_idx(path)
        assert str(e.value).startswith(f"{path}: ") and message in str(e.value)


def test_idx_damaged_gzip(tmp_path):
    good = gzip.compress(bytes([0, 0, 8, 1, 0, 0, 0, 100]) + bytes(range(100)))
    (tmp_path/'cut.gz').write_bytes(good[:-10])
    bad = bytearray(good); bad[-6] ^= 0xFF                       # a wrong CRC
    (tmp_path/'crc.gz').write_bytes(bytes(bad))
    for name in ('cut.gz', 'crc.gz'):
        with pytest.raises(ValueError, match=f"{name}: damaged gzip data"): read_idx(tmp_path/name)
    with pytest.raises(FileNotFoundError, match="nothing-here"): read_idx(tmp_path/'nothing-here')


def test_write_idx_refuses_what_idx_cannot_hold(tmp_path):
    with pytest.raises(TypeError, match="IDX has no type for int64"): write_idx(tmp_path/'x', np.arange(3))
    with pytest.raises(TypeError, match="IDX has no type for bool"): write_idx(tmp_path/'x', np.zeros(3, bool))


# --- MNIST ----------------------------------------------------------------------------------------

def fake_mnist(folder, n_train=6, n_test=4, gz=True, hw=(28, 28)):
    "Small files with MNIST's names and format; returns the arrays written."
    folder.mkdir(parents=True, exist_ok=True)
    rng, out = np.random.default_rng(1), {}
    for split, n in (('train', n_train), ('t10k', n_test)):
        out[split] = rng.integers(0, 256, (n, *hw)).astype(np.uint8), rng.integers(0, 10, n).astype(np.uint8)
        sfx = '.gz' if gz else ''
        write_idx(folder/f'{split}-images-idx3-ubyte{sfx}', out[split][0])
        write_idx(folder/f'{split}-labels-idx1-ubyte{sfx}', out[split][1])
    return out


@pytest.mark.parametrize('layout,gz', [('flat', True), ('flat', False), ('torchvision', True)])
def test_mnist_reads_both_splits(tmp_path, layout, gz):
    arrays = fake_mnist(tmp_path if layout == 'flat' else tmp_path/'MNIST'/'raw', gz=gz)
    for train, split in ((True, 'train'), (False, 't10k')):
        ds, (imgs, labels) = MNIST(tmp_path, train=train), arrays[split]
        assert len(ds) == len(labels) and ds.train is train
        assert ds.data.dtype == litnn.uint8 and np.array_equal(ds.data.numpy(), imgs)
        assert ds.targets.dtype == litnn.int64 and ds.targets.tolist() == labels.tolist()
        x, y = ds[1]
        assert (x.shape, x.dtype, y.dtype, y.item()) == ((1, 28, 28), litnn.float32, litnn.int64, labels[1])
        np.testing.assert_allclose(x.numpy()[0], imgs[1] / 255, rtol=1e-6)


def test_mnist_batches_as_torchvision_to_tensor(tmp_path):
    "The batches are those of torch tensors made as torchvision's ToTensor makes them (x / 255, a channel dim)."
    imgs, labels = fake_mnist(tmp_path, n_train=10)['train']
    tds = torch.utils.data.TensorDataset(torch.tensor(imgs).unsqueeze(1).float() / 255, torch.tensor(labels).long())
    ours = [(x.numpy(), y.numpy()) for x, y in DataLoader(MNIST(tmp_path), batch_size=4)]
    theirs = [(x.numpy(), y.numpy()) for x, y in torch.utils.data.DataLoader(tds, batch_size=4)]
    assert len(ours) == len(theirs) == 3
    for (a, b), (c, d) in zip(ours, theirs):
        assert a.dtype == c.dtype and b.dtype == d.dtype and np.allclose(a, c, rtol=1e-6, atol=0) and np.array_equal(b, d)


def test_mnist_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="found no train-images-idx3-ubyte"): MNIST(tmp_path)
    with pytest.raises(RuntimeError, match="does not download"): MNIST(tmp_path, download=True)
    fake_mnist(tmp_path)
    write_idx(tmp_path/'train-labels-idx1-ubyte.gz', np.zeros(5, np.uint8))
    with pytest.raises(ValueError, match=r"uint8 \(6, 28, 28\) and litnn.uint8 \(5,\)"): MNIST(tmp_path)
    write_idx(tmp_path/'t10k-images-idx3-ubyte.gz', np.zeros((4, 28 * 28), np.uint8))
    with pytest.raises(ValueError, match="t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz should hold"): MNIST(tmp_path, train=False)


def test_fashion_mnist_folder(tmp_path):
    fake_mnist(tmp_path/'FashionMNIST'/'raw', hw=(4, 5))
    ds = FashionMNIST(tmp_path)
    assert len(ds) == 6 and ds[0][0].shape == (1, 4, 5) and ds.classes[9] == 'Ankle boot'
    with pytest.raises(FileNotFoundError, match="MNIST/raw"): MNIST(tmp_path)
