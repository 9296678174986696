"""Checkpoints written before litnn's package took torch's layout (issue 26) still load, into today's classes.

tests/data/pre_move/ holds a model and distribution objects saved by litnn when ELU lived in
`litnn.nn.modules.more_activation_modules`, SoftmaxTransform in `litnn.distributions._more_transforms`...; litnn's
format records each object's class by that path. The loader finds a class that moved through one small table,
`litnn._objects._MOVED` (old module, or old module.Class -> new module): nothing is imported by name from the file."""
import importlib.util, warnings
from pathlib import Path
import pytest
import litnn
from litnn import nn
from litnn.distributions import Normal, Categorical, TransformedDistribution, transforms, constraints

DATA = Path(__file__).parent/'data'/'pre_move'
spec = importlib.util.spec_from_file_location('pre_move_make', DATA/'make.py')
make = importlib.util.module_from_spec(spec); spec.loader.exec_module(make)   # its `model()` names classes by litnn.nn only

def test_the_files_name_the_old_paths():
    "The test data is what it claims: the old class paths are in the files."
    text = (DATA/'model.litnn').read_bytes()[:200_000]
    assert b'litnn.nn.modules.more_activation_modules.ELU' in text and b'litnn.nn.modules.more_containers.ModuleDict' in text
    assert b'litnn.distributions._more_transforms.SoftmaxTransform' in (DATA/'objects.litnn').read_bytes()

def test_a_whole_model_saved_under_old_paths_loads_into_todays_classes():
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        old, new = litnn.load(DATA/'model.litnn', weights_only=False), make.model()
    assert [type(m) for m in old.modules()] == [type(m) for m in new.modules()]
    assert old.state_dict().keys() == new.state_dict().keys()
    for k, v in new.state_dict().items():      # (the seeded weights differ: the random stream became torch's since)
        assert old.state_dict()[k].shape == v.shape and old.state_dict()[k].dtype == v.dtype, k
    new.load_state_dict(old.state_dict())
    elu = old[1]
    assert type(elu) is nn.ELU and type(elu).__module__ == 'litnn.nn.modules.activation'
    x = litnn.randn(3, 4)
    assert litnn.equal(old[:2](x), new[:2](x))

def test_objects_saved_under_old_paths_load_with_todays_allow_list():
    "The allow-list names today's classes; the file's old names find them through the same table."
    allowed = [Normal, Categorical, TransformedDistribution, transforms.ExpTransform, transforms.SoftmaxTransform,
               transforms.StickBreakingTransform, transforms.CorrCholeskyTransform, type(constraints.positive_semidefinite),
               type(constraints.corr_cholesky), type(constraints.positive)]
    with pytest.raises(Exception, match='not allow-listed'): litnn.load(DATA/'objects.litnn')
    with litnn.serialization.safe_globals(allowed): o = litnn.load(DATA/'objects.litnn')
    assert [type(t) for t in o['transforms']] == [transforms.SoftmaxTransform, transforms.StickBreakingTransform,
                                                   transforms.CorrCholeskyTransform]
    assert type(o['transforms'][0]).__module__ == 'litnn.distributions.transforms'
    assert o['constraints'][0] is constraints.positive_semidefinite or type(o['constraints'][0]) is type(constraints.positive_semidefinite)
    assert litnn.equal(o['normal'].loc, litnn.zeros(2)) and o['normal'].log_prob(litnn.zeros(2)).shape == (2,)
    assert litnn.equal(o['transforms'][0](litnn.zeros(3)), litnn.full((3,), 1 / 3))

def test_the_table_only_renames_never_imports():
    from litnn._objects import _MOVED, _current_name
    assert all(k.startswith('litnn.') and (v == 'litnn' or v.startswith('litnn.')) for k, v in _MOVED.items())
    assert _current_name('litnn.tensor.Tensor') == 'litnn.Tensor' and _current_name('litnn.ops.WhereBackward0') == 'litnn._pointwise.WhereBackward0'
    assert _current_name('litnn.distributions._more_transforms.SoftmaxTransform') == 'litnn.distributions.transforms.SoftmaxTransform'
    assert _current_name('os.system') == 'os.system'
