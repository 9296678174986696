"""litnn.hub side by side with torch.hub, offline: hubconf entrypoints from a local directory and from a GitHub repository
in the hub cache, dependency checks, the trust check, and checkpoints from file:// URLs and the checkpoint cache."""
import hashlib, inspect, os, shutil
from pathlib import Path
from urllib.error import URLError
import numpy as np
import pytest
import litnn
torch = pytest.importorskip('torch')

HUBCONF = '''
dependencies = ['numpy']
def make(n=3, scale=1.0):
    """Returns a list of n numbers."""
    return [scale * i for i in range(n)]
def other(): return 'other'
def _private(): pass
CONSTANT = 3
'''

@pytest.fixture
def hubdirs(tmp_path):
    "Both libraries' hub directories under tmp_path, restored afterwards."
    old = litnn.hub.get_dir(), torch.hub.get_dir()
    litnn.hub.set_dir(str(tmp_path / 'lhub')); torch.hub.set_dir(str(tmp_path / 'thub'))
    repo = tmp_path / 'repo'; repo.mkdir(); (repo / 'hubconf.py').write_text(HUBCONF)
    yield tmp_path, repo
    litnn.hub.set_dir(old[0]); torch.hub.set_dir(old[1])

def test_signatures_as_torch():
    for name in ['load', 'list', 'help', 'get_dir', 'set_dir', 'load_state_dict_from_url', 'download_url_to_file']:
        lp, tp = inspect.signature(getattr(litnn.hub, name)).parameters, inspect.signature(getattr(torch.hub, name)).parameters
        assert [(p.name, p.default, p.kind) for p in lp.values()] == [(p.name, p.default, p.kind) for p in tp.values()], name
    assert litnn.hub.load.__module__ == 'litnn.hub' and litnn.hub.HASH_REGEX.pattern == torch.hub.HASH_REGEX.pattern

def test_default_dir_as_torch(monkeypatch, tmp_path):
    for env in ({}, {'TORCH_HOME': str(tmp_path / 'th')}, {'XDG_CACHE_HOME': str(tmp_path / 'xdg')}):
        for k in ('TORCH_HOME', 'XDG_CACHE_HOME'): monkeypatch.delenv(k, raising=False)
        for k, v in env.items(): monkeypatch.setenv(k, v)
        assert litnn.hub._get_torch_home() == torch.hub._get_torch_home()

def test_load_local_as_torch(hubdirs):
    _, repo = hubdirs
    for lib in (litnn, torch):
        assert lib.hub.load(str(repo), 'make', 4, source='local', scale=2.0) == [0.0, 2.0, 4.0, 6.0]
        for bad, exc, msg in [('nope', RuntimeError, 'Cannot find callable nope in hubconf'),
                              ('CONSTANT', RuntimeError, 'Cannot find callable CONSTANT in hubconf')]:
            with pytest.raises(exc, match=msg): lib.hub.load(str(repo), bad, source='local')
        with pytest.raises(ValueError, match='Unknown source: "svn". Allowed values: "github" | "local".'):
            lib.hub.load(str(repo), 'make', source='svn')
        with pytest.raises(ValueError, match='model should be a string'): lib.hub.load(str(repo), 1, source='local')

def test_missing_dependencies_as_torch(hubdirs):
    _, repo = hubdirs
    (repo / 'hubconf.py').write_text("dependencies = ['numpy', 'no_such_pkg_1', 'no_such_pkg_2']\ndef f(): return 1\n")
    msgs = []
    for lib in (litnn, torch):
        with pytest.raises(RuntimeError) as e: lib.hub.load(str(repo), 'f', source='local')
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1] == 'Missing dependencies: no_such_pkg_1, no_such_pkg_2'

def test_cached_github_repo_as_torch(hubdirs, capsys):
    "A GitHub repository already in the cache loads, lists and helps offline, in both."
    tmp, repo = hubdirs
    for lib in (litnn, torch):
        shutil.copytree(repo, os.path.join(lib.hub.get_dir(), 'someone_thing_main'))
        assert lib.hub.load('someone/thing:main', 'make', 2, trust_repo=True) == [0.0, 1.0]
        assert lib.hub.list('someone/thing:main', trust_repo=True) == ['make', 'other']
        assert lib.hub.help('someone/thing:main', 'make', trust_repo=True) == 'Returns a list of n numbers.'
        assert 'Using cache found in' in capsys.readouterr().err
    assert litnn.hub.list('someone/thing') == ['make', 'other']    # the cached main branch, without asking GitHub

def test_untrusted_repo_prompts(hubdirs, monkeypatch):
    tmp, repo = hubdirs
    monkeypatch.setattr('builtins.input', lambda prompt: 'n')
    for lib in (litnn, torch):
        os.makedirs(lib.hub.get_dir(), exist_ok=True)
        with pytest.raises(Exception, match='Untrusted repository.'): lib.hub._check_repo_is_trusted('someone', 'x', 'someone_x_main', 'check')
        lib.hub._check_repo_is_trusted('pytorch', 'vision', 'pytorch_vision_main', 'check')   # a trusted owner: no prompt
    assert Path(litnn.hub.get_dir(), 'trusted_list').read_text() == Path(torch.hub.get_dir(), 'trusted_list').read_text()

def test_load_state_dict_from_file_url_and_cache(hubdirs, capsys):
    tmp, _ = hubdirs
    w = {'weight': np.arange(6, dtype=np.float32).reshape(2, 3), 'bias': np.ones(2, np.float32)}
    litnn.save({k: litnn.tensor(v) for k, v in w.items()}, str(tmp / 'l.pt'))
    torch.save({k: torch.tensor(v) for k, v in w.items()}, str(tmp / 't.pt'))
    for lib, f in ((litnn, 'l.pt'), (torch, 't.pt')):
        digest = hashlib.sha256((tmp / f).read_bytes()).hexdigest()
        named = tmp / f'model-{digest[:10]}.pth'; shutil.copy(tmp / f, named)
        sd = lib.hub.load_state_dict_from_url(named.as_uri(), check_hash=True)
        assert {k: v.numpy().tolist() for k, v in sd.items()} == {k: v.tolist() for k, v in w.items()}
        assert os.listdir(os.path.join(lib.hub.get_dir(), 'checkpoints')) == [named.name]
        assert f'Downloading: "{named.as_uri()}"' in capsys.readouterr().out
        named.unlink()   # now only the cache has it: a second call reads the cache
        assert sorted(lib.hub.load_state_dict_from_url(named.as_uri())) == ['bias', 'weight']
        with pytest.raises(RuntimeError, match='invalid hash value'):
            lib.hub.load_state_dict_from_url((tmp / f).as_uri(), file_name='x-ffff.pth', check_hash=True)
        md = tmp / f'md_{lib.__name__}'
        assert sorted(lib.hub.load_state_dict_from_url((tmp / f).as_uri(), model_dir=str(md), file_name='w.pt')) == ['bias', 'weight']
        assert os.listdir(md) == ['w.pt']
    # a checkpoint torch downloaded into its cache, read by litnn (same directory layout)
    shutil.copy(tmp / 't.pt', os.path.join(litnn.hub.get_dir(), 'checkpoints', 'from_torch.pth'))
    sd = litnn.hub.load_state_dict_from_url('https://example.invalid/from_torch.pth')
    assert sd['weight'].tolist() == w['weight'].tolist()

def test_http_url_not_cached_is_urlerror(hubdirs):
    url = 'https://nowhere.invalid/weights/model-0123abcd.pth'
    for lib in (litnn, torch):
        with pytest.raises(URLError): lib.hub.load_state_dict_from_url(url)
    with pytest.raises(URLError) as e: litnn.hub.load_state_dict_from_url(url)
    assert url in str(e.value) and 'checkpoints' in str(e.value)
    with pytest.raises(URLError, match='nowhere.invalid'): litnn.hub.download_url_to_file(url, str(hubdirs[0] / 'x'))

def test_download_url_to_file(hubdirs):
    tmp, repo = hubdirs
    data = (repo / 'hubconf.py').read_bytes()
    for lib in (litnn, torch):
        dst = tmp / f'copy_{lib.__name__}'
        lib.hub.download_url_to_file((repo / 'hubconf.py').as_uri(), str(dst), hash_prefix=hashlib.sha256(data).hexdigest()[:6])
        assert dst.read_bytes() == data
        with pytest.raises(RuntimeError, match='invalid hash value'):
            lib.hub.download_url_to_file((repo / 'hubconf.py').as_uri(), str(tmp / 'bad'), hash_prefix='0000000')
        assert not (tmp / 'bad').exists() and not [p for p in tmp.iterdir() if p.name.startswith('bad')]

def test_checkpoint_refusing_code(hubdirs):
    "A pickled checkpoint with code in it is refused by litnn's loader, not run."
    tmp, _ = hubdirs
    import pickle
    class Evil:
        def __reduce__(self): return (os.system, ('echo pwned > ' + str(tmp / 'pwned'),))
    (tmp / 'evil.pth').write_bytes(pickle.dumps({'x': Evil()}))
    with pytest.raises(Exception): litnn.hub.load_state_dict_from_url((tmp / 'evil.pth').as_uri())
    assert not (tmp / 'pwned').exists()
