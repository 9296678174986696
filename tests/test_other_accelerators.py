"""torch.xpu, torch.mps and torch.mtia on a machine without those devices, against torch 2.13 on the same machine: what
device-picking and seeding code asks answers the same, and what needs a device raises torch's error."""
import warnings
import pytest
import litnn

torch = pytest.importorskip('torch')

CALLS = {'xpu': ['is_available', 'device_count', 'is_initialized', 'is_bf16_supported', 'memory_allocated', 'empty_cache',
                 'seed', 'seed_all', 'current_device', 'synchronize', 'get_device_name', 'get_rng_state'],
         'mps': ['is_available', 'device_count', 'synchronize', 'empty_cache', 'seed', 'get_rng_state', 'current_allocated_memory'],
         'mtia': ['is_available', 'device_count', 'is_initialized', 'is_bf16_supported', 'memory_allocated', 'seed',
                  'current_device', 'synchronize', 'empty_cache']}

@pytest.mark.parametrize('module,name', [(m, n) for m, names in CALLS.items() for n in names])
def test_answers_as_torch_without_the_device(module, name):
    def ask(lib):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            try: return getattr(getattr(lib, module), name)()
            except Exception as e: return type(e).__name__, str(e)
    assert ask(litnn) == ask(torch)

@pytest.mark.parametrize('module', ['xpu', 'mps', 'mtia'])
def test_seeding_every_backend_is_a_no_op(module):
    assert getattr(litnn, module).manual_seed(0) is None and getattr(torch, module).manual_seed(0) is None
