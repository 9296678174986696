"""Files made to exhaust memory: `litnn.load` refuses each one cleanly (litnn's load error, naming the file and what is wrong)
while its memory stays within the file's size plus a small constant. Each load runs in a child process that reports its peak
resident memory (VmHWM: ru_maxrss would include the parent's, inherited through fork and exec), under an address-space limit
so that a regression fails here instead of exhausting the machine. Linux only (/proc)."""
import io, json, os, pickle, subprocess, sys, zipfile
from collections import OrderedDict

import numpy as np
import pytest

import litnn
from litnn._checkpoint_file import CheckpointError, _ROOM, _ROOM_PER_BYTE

pytestmark = pytest.mark.skipif(not os.path.exists('/proc/self/status'), reason='measures memory through /proc (Linux)')

MB = 2**20
SLACK = 100 * MB   # the small constant: what a refusal may take besides the file's size (the objects' room is 64 MiB)

CHILD = r'''
import json, resource, sys
import litnn
def status(): return dict(l.split(":", 1) for l in open("/proc/self/status") if ":" in l)
def peak(): return int(status()["VmHWM"].split()[0]) * 1024   # the most resident memory since exec (ru_maxrss also counts the parent's, through fork)
limit = int(status()["VmSize"].split()[0]) * 1024 + 2 * 2**30   # 2 GiB more address space than after the import: a safety net
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
base = peak()
try:
    out = litnn.load(sys.argv[1])
    error = None
except BaseException as e:
    error = [type(e).__module__ + "." + type(e).__qualname__, str(e)]
print(json.dumps({"base": base, "peak": peak(), "error": error}))
'''


def load_in_child(path):
    "What loading `path` does in a fresh process: (exception type name and message, or None; bytes of memory it added)."
    r = subprocess.run([sys.executable, '-c', CHILD, str(path)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    return out['error'], out['peak'] - out['base']


def refused(path, exc, reason):
    "Loading `path` is refused with `exc`, naming the file and `reason`, and adds at most its size plus SLACK to memory."
    error, added = load_in_child(path)
    assert error is not None, 'the hostile file loaded'
    assert error[0] == exc, error
    assert str(path) in error[1] and reason in error[1], error[1]
    assert added < os.path.getsize(path) + SLACK, (added / MB, os.path.getsize(path) / MB, error)
    return added


def deflated_pickle(path, size, head=b'\x80\x02', tail=b'', fill=b'\x00', extra=()):
    "A torch-like zip at `path` whose data.pkl is `head`, `size` bytes of `fill` and `tail`, deflated (written 4 MB at a time)."
    chunk = fill * ((4 * MB) // len(fill))
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED) as z:
        with z.open('archive/data.pkl', 'w', force_zip64=True) as w:
            w.write(head)
            for _ in range(size // len(chunk)): w.write(chunk)
            w.write(fill * ((size % len(chunk)) // len(fill)) + tail)
        for name, data in [('archive/byteorder', b'little'), *extra, ('archive/version', b'3\n')]: z.writestr(name, data)
    return path


# --- PyTorch zip files ------------------------------------------------------------------------------------

def test_zip_bomb_data_pkl_is_refused_before_it_is_inflated(tmp_path):
    "The tester's file, 300 MiB instead of 1 GiB: a data.pkl of zeros deflated 1000 to 1 (it used to take twice its size)."
    path = deflated_pickle(tmp_path / 'bomb.pt', 300 * MB)
    assert os.path.getsize(path) < 1 * MB
    refused(path, 'litnn._checkpoint_file.CheckpointError',
            f"record 'archive/data.pkl' would inflate to {300 * MB + 2} bytes, more than the {64 * MB} a compressed data.pkl may")


def test_deflated_data_pkl_under_the_limit_is_streamed(tmp_path):
    "60 MiB of zeros (under the 64 MiB limit): refused at its first instruction, having inflated one chunk, not 60 MiB."
    path = deflated_pickle(tmp_path / 'zeros.pt', 60 * MB)
    added = refused(path, '_pickle.UnpicklingError', "its data.pkl is malformed (ValueError(\"at position 2, opcode b'\\\\x00' unknown")
    assert added < 20 * MB, added / MB


def test_crc_of_a_streamed_data_pkl_is_still_checked(tmp_path):
    "A data.pkl damaged after its STOP: the stream reads on to the record's end, so its CRC is checked (as torch does)."
    good = pickle.dumps({'a': 1}, protocol=2) + bytes(MB)   # STOP, then a megabyte: several chunks
    b = io.BytesIO()
    with zipfile.ZipFile(b, 'w') as z: z.writestr('archive/data.pkl', good)
    (tmp_path / 'ok.pt').write_bytes(b.getvalue())
    assert litnn.load(tmp_path / 'ok.pt') == {'a': 1}
    raw = bytearray(b.getvalue())
    raw[raw.index(good) + len(good) - 10] ^= 1
    (tmp_path / 'crc.pt').write_bytes(bytes(raw))
    with pytest.raises(CheckpointError, match=r"crc.pt': record 'archive/data.pkl' cannot be read \(Bad CRC-32"):
        litnn.load(tmp_path / 'crc.pt')


def test_pickle_of_empty_sets_is_refused_at_its_room(tmp_path):
    "One byte of pickle (EMPTY_SET) makes a 216-byte set: 60 KB deflating to 60 MB of them would make 13 GB."
    path = deflated_pickle(tmp_path / 'sets.pt', 60 * MB, head=b'\x80\x04](', fill=pickle.EMPTY_SET, tail=b'e.')
    refused(path, 'litnn._checkpoint_file.CheckpointError', "bytes a file's structure may: it is damaged or made to exhaust memory")


def test_stored_pickle_of_empty_sets_is_refused_at_its_room(tmp_path):
    "Stored, not deflated: 500 KB of EMPTY_SET (110 MB of sets) is refused at 64 MiB plus 16 bytes per byte of the file."
    path = tmp_path / 'stored-sets.pt'
    with zipfile.ZipFile(path, 'w') as z:
        z.writestr('archive/data.pkl', b'\x80\x04](' + pickle.EMPTY_SET * 500_000 + b'e.')
        z.writestr('archive/version', '3\n')
    refused(path, 'litnn._checkpoint_file.CheckpointError', f"more than the {_ROOM + _ROOM_PER_BYTE * os.path.getsize(path)} bytes")


def test_declared_value_past_the_record_is_refused_before_reading(tmp_path):
    "BINBYTES8 declaring 2**60 bytes, in a 40 MiB data.pkl: refused before anything is read or allocated for it."
    path = deflated_pickle(tmp_path / 'long.pt', 40 * MB, head=b'\x80\x04\x8e' + (2**60).to_bytes(8, 'little'))
    added = refused(path, '_pickle.UnpicklingError', f'{2**60} bytes at byte 11 run past the end of the record ({40 * MB + 11} bytes)')
    assert added < 20 * MB, added / MB


def test_record_past_the_end_of_the_file_is_refused(tmp_path):
    "A storage whose directory entry claims 2 GiB in a small file (stored: both sizes agree): refused before it is opened."
    path = tmp_path / 'past.pt'
    litnn.save({'w': litnn.ones(6)}, path, format='torch')
    raw, name = bytearray(path.read_bytes()), b'archive/data/0'
    at = next(i for i in range(len(raw)) if raw[i:i + 4] == b'PK\x01\x02' and raw[i + 46:i + 46 + len(name)] == name)
    raw[at + 20:at + 28] = (2**31).to_bytes(4, 'little') * 2   # its compressed and uncompressed sizes
    path.write_bytes(bytes(raw))
    with pytest.raises(CheckpointError, match=r"record 'archive/data/0' declares 2147483648 bytes from byte \d+, past the end of the zip's records"):
        litnn.load(path)


def test_byteorder_garbage_is_litnns_load_error(tmp_path):
    "Defect 3: a garbage byteorder record raised torch's ValueError wording, naming neither litnn.load nor the file."
    for order, said in [(b'middle', "'middle'"), (b'\x00' * 100, '100 bytes long')]:
        path = tmp_path / 'order.pt'
        litnn.save({'w': litnn.ones(2)}, path, format='torch')
        with zipfile.ZipFile(path) as z: records = {n: z.read(n) for n in z.namelist()}
        with zipfile.ZipFile(path, 'w') as z:
            for n, data in records.items(): z.writestr(n, order if n.endswith('/byteorder') else data)
        with pytest.raises(CheckpointError) as e: litnn.load(path)
        assert str(e.value) == (f"litnn.load: cannot load {str(path)!r}: its byte order is unknown: "
                                f"record 'archive/byteorder' is {said}, neither 'little' nor 'big'")


# --- safetensors and litnn checkpoints -------------------------------------------------------------------------

def test_header_length_zero_is_refused_before_reading(tmp_path):
    "Defect 2: a length field of 0 read the whole file as the header (3 times its size in memory). A sparse 150 MB file."
    path = tmp_path / 'zero.safetensors'
    with open(path, 'wb') as fh:
        fh.write(bytes(8) + b'{}')
        fh.truncate(150 * MB)
    added = refused(path, 'litnn._checkpoint_file.CheckpointError', "its header's length field says 0 bytes, too few for a JSON object")
    assert added < 20 * MB, added / MB


def test_header_of_empty_lists_is_refused_before_parsing(tmp_path):
    "A litnn checkpoint whose structure is 15 MB of `[],`: 5 million lists, 400 MB parsed. Refused from its text's cost."
    import safetensors, safetensors.numpy
    structure = '{"tensors": [], "root": [' + '[],' * 5_000_000 + '[]]}'
    path = tmp_path / 'lists.pt'
    path.write_bytes(safetensors.serialize({}, metadata={'format': 'litnn', 'version': '2', 'structure': structure}))
    refused(path, 'litnn._checkpoint_file.CheckpointError', 'its header could take')


def test_structure_of_empty_dicts_within_a_large_file_is_refused_before_parsing(tmp_path):
    "A big file (a 40 MB tensor) leaves its header room, but the structure string is parsed against its own text's room."
    import safetensors, safetensors.numpy
    structure = '{"tensors": [], "root": [' + '{},' * 1_500_000 + '{}]}'
    arrays = {'pad': np.zeros(10 * MB, np.float32)}
    path = tmp_path / 'dicts.pt'
    path.write_bytes(safetensors.numpy.save(arrays, metadata={'format': 'litnn', 'version': '2', 'structure': structure}))
    refused(path, 'litnn._checkpoint_file.CheckpointError', 'its structure could take')


def test_one_storage_on_many_devices_is_refused(tmp_path):
    "A thousand records naming one entry on a thousand devices would place (with map_location) a thousand copies."
    import safetensors, safetensors.numpy
    records = [{'dtype': 'float32', 'shape': [4], 'device': f'cpu:{i}', 'storage': 'w'} for i in range(1000)]
    structure = json.dumps({'tensors': records, 'root': [{'type': 'tensor', 'index': i} for i in range(1000)]})
    path = tmp_path / 'devices.pt'
    path.write_bytes(safetensors.numpy.save({'w': np.ones(4, np.float32)}, metadata={'format': 'litnn', 'version': '2', 'structure': structure}))
    with pytest.raises(CheckpointError, match=r"tensor 1: its storage 'w' is on cpu:1, but an earlier tensor's is on cpu:0"):
        litnn.load(path, map_location='cpu')


def test_ndarray_named_many_times_is_one_array(tmp_path):
    "Records naming one saved numpy array come back as that one array (not one CPU copy each, which map_location='cuda' made)."
    a = np.arange(6.)
    litnn.save({'x': a, 'y': a, 'z': [a] * 3}, tmp_path / 'a.pt')
    back = litnn.load(tmp_path / 'a.pt')
    assert back['x'] is back['y'] is back['z'][2] and back['x'].tolist() == a.tolist()


# --- real files still load, within the same bound ------------------------------------------------------------

@pytest.mark.parametrize('format', ['litnn', 'torch'])
def test_real_checkpoint_loads_within_its_size_plus_the_constant(format, tmp_path):
    "A 64 MB tensor, a state dict and an optimizer-like dict: loads whole, adding about its size to memory."
    sd = OrderedDict((f'layers.{i}.weight', litnn.ones(8, 8) * i) for i in range(200))
    sd['big'] = litnn.zeros(16 * MB)
    path = tmp_path / f'real.{format}'
    litnn.save({'model': sd, 'step': 7, 'lr': [0.1] * 1000}, path, format=format)
    error, added = load_in_child(path)
    assert error is None, error
    assert added < os.path.getsize(path) + SLACK, added / MB
    back = litnn.load(path)
    assert back['step'] == 7 and back['model']['layers.3.weight'].tolist()[0][:2] == [3., 3.]

def test_a_file_that_is_no_checkpoint_raises_what_torch_raises(tmp_path):
    "torch.load raises UnpicklingError for bytes that are no checkpoint and RuntimeError for a broken zip: CheckpointError is both."
    import pickle
    torch = pytest.importorskip('torch')
    p = tmp_path / 'junk.pt'
    p.write_bytes(b'garbage, not a checkpoint')
    with pytest.raises(pickle.UnpicklingError): torch.load(p)
    with pytest.raises(pickle.UnpicklingError): litnn.load(p)
    with pytest.raises(RuntimeError): litnn.load(p)
