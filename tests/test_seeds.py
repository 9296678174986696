"""Every code example of the five seed documents (../shared/seeds/, litnn's first readers' notes on
`nn.Module`, in Chinese) runs with `import litnn as torch`, and prints what PyTorch 2.13 prints.

Each example is kept as the seed wrote it. Where a seed has a typo or a bug that torch also rejects, the
smallest fix is made and a `# seed:` comment says what changed and why. `run` executes an example twice,
once with `torch` and once with litnn standing in for it (only the import lines differ), and returns
both printouts; they must be equal after one normalisation: litnn's own name where it stands for
torch's (`litnn.Size` for `torch.Size`, `<class 'litnn.Tensor'>` for `<class 'torch.Tensor'>`).
Where the seed shows output, that output is asserted too (as torch 2.13 prints it: the seeds were
written with torch 1.x, whose node names lacked the version suffix, e.g. `DotBackward`)."""
import contextlib, io, re, warnings
import pytest
import litnn
torch = pytest.importorskip('torch')

_LITNN_IMPORTS = [(r'^import torch$', 'import litnn as torch'),
                  (r'^import torch\.nn as nn$', 'import litnn.nn as nn'),
                  (r'^import torch\.nn\.functional as F$', 'import litnn.nn.functional as F'),
                  (r'^from torch import nn$', 'from litnn import nn')]

def _normalise(text):
    text = re.sub(r' at 0x[0-9a-f]+', ' at 0x...', text)
    text = text.replace("<class 'litnn.nn.parameter.Parameter'>", "<class 'torch.nn.parameter.Parameter'>")
    return re.sub(r'\blitnn\.', 'torch.', text)

def _exec(src, tmp_path):
    out = io.StringIO()
    ns = {'__name__': '__seed__', 'PATH': str(tmp_path/'checkpoint.pt')}
    with contextlib.redirect_stdout(out), warnings.catch_warnings(), contextlib.chdir(tmp_path):
        warnings.simplefilter('ignore')
        exec(compile(src, 'seed-example', 'exec'), ns)
    return _normalise(out.getvalue()), ns

def run(src, tmp_path, compare=True):
    "Run a seed example with torch and with litnn as `torch`: litnn's printout (equal to torch's) and namespace."
    lit_src = src
    for pat, rep in _LITNN_IMPORTS: lit_src = re.sub(pat, rep, lit_src, flags=re.M)
    assert 'import litnn' in lit_src, 'an example must import torch to be run with litnn'
    (tmp_path/'torch').mkdir(); (tmp_path/'litnn').mkdir()
    ref, _ = _exec(src, tmp_path/'torch')
    got, ns = _exec(lit_src, tmp_path/'litnn')
    if compare: assert got == ref
    return got, ns

# ---- 001: nn.Module(), autograd part -------------------------------------------------------------

def test_001_leaf_gradients(tmp_path):
    src = '''
import torch
w = torch.tensor([1.], requires_grad=True)
x = torch.tensor([2.], requires_grad=True)
# y=(x+w)*(w+1)
a = torch.add(w, x)     # retain_grad()
b = torch.add(w, 1)
y = torch.mul(a, b)
# y 求导
y.backward() # ！求导
# 打印 w 的梯度，就是 y 对 w 的导数
print(w.grad)
# 查看叶子结点
print("is_leaf:\\n", w.is_leaf, x.is_leaf, a.is_leaf, b.is_leaf, y.is_leaf)
# 查看梯度
print("gradient:\\n", w.grad, x.grad, a.grad, b.grad, y.grad)
'''
    out, ns = run(src, tmp_path)
    assert out == ("tensor([5.])\n"
                   "is_leaf:\n True True False False False\n"
                   "gradient:\n tensor([5.]) tensor([2.]) None None None\n")
    for attr in ['data', 'dtype', 'shape', 'device', 'requires_grad', 'grad', 'grad_fn', 'is_leaf']:   # the 8 attributes
        getattr(ns['y'], attr)

def test_001_tensor_vs_tensor_function(tmp_path):
    src = '''
import torch
a = torch.tensor([1,2,3])
print(a.type())
a = torch.tensor([1.,2.,3.])
print(a.type())
print(torch.Tensor().dtype, torch.Tensor([1, 2]).type(), torch.Tensor([1, 2]).requires_grad)
label = torch.LongTensor([1, 0, 2])
print(label.type(), label.dtype)
# seed: dtype="torch.LongTensor" is not a dtype (torch raises TypeError); the dtype of a LongTensor is torch.long
label = torch.tensor([1, 0, 2], dtype=torch.long)
print(label.type())
print(torch.Tensor([1, 2]).type_as(label).type())
'''
    out, _ = run(src, tmp_path)
    assert out.splitlines()[:2] == ['torch.LongTensor', 'torch.FloatTensor']
    assert 'torch.LongTensor torch.int64' in out

def test_001_seed_typo_dtype_string_fails_in_both():
    for lib in (torch, litnn):
        with pytest.raises(TypeError): lib.tensor([1, 2], dtype="torch.LongTensor")

def test_001_grad_fn(tmp_path):
    src = '''
import torch
x = torch.ones(2, 2, requires_grad=True)
print(x.grad_fn)  # None
y = x + 2
print(y.grad_fn)  # <AddBackward object at 0x1100477b8>
a=torch.tensor([1.0])
print(a.is_leaf)
b=a+1
print(b.is_leaf)
'''
    out, _ = run(src, tmp_path)
    assert out == "None\n<AddBackward0 object at 0x...>\nTrue\nTrue\n"

def test_001_tensor_hooks_and_retain_grad(tmp_path):
    src = '''
import torch
x = torch.tensor([2], dtype=float, requires_grad=True)
y = torch.tensor([6], dtype=float, requires_grad=True)
y_ = y / 2
z = x ** 2 + y_ * 2
z.backward(retain_graph=True)
print(x.grad, y.grad, y_.grad, z.grad)
# tensor([4.], dtype=torch.float64) tensor([1.], dtype=torch.float64) None None
print(torch.autograd.grad(z, [x, y, y_], retain_graph=True))
# (tensor([4.], dtype=torch.float64), tensor([1.], dtype=torch.float64), tensor([2.], dtype=torch.float64))
y_.retain_grad() # 保留指定的非叶节点的梯度;必须定义在backward()之前
z.backward(retain_graph=True)
print(x.grad, y.grad, y_.grad, z.grad)
# tensor([8.], dtype=torch.float64) tensor([2.], dtype=torch.float64) tensor([2.], dtype=torch.float64) None
# 此时梯度被累积
x.grad.zero_()
z.backward(retain_graph=True)
print(x.grad, y.grad, y_.grad, z.grad)
# tensor([4.], dtype=torch.float64) tensor([3.], dtype=torch.float64) tensor([4.], dtype=torch.float64) None
# x的梯度事先被清零,计算正确;其他节点的梯度继续累积
h1 = y_.register_hook(lambda grad: print(grad))
h2 = y_.register_hook(lambda grad: 2*grad)
z.backward()
print(y.grad, y_.grad)
# tensor([2.], dtype=torch.float64)
# tensor([5.], dtype=torch.float64) tensor([6.], dtype=torch.float64)
h1.remove()  # hook函数应在使用后及时移除,以免增加计算量
h2.remove()
'''
    out, _ = run(src, tmp_path)
    f64 = lambda v: f"tensor([{v}.], dtype=torch.float64)"
    assert out.splitlines() == [
        f"{f64(4)} {f64(1)} None None",
        f"({f64(4)}, {f64(1)}, {f64(2)})",
        f"{f64(8)} {f64(2)} {f64(2)} None",
        f"{f64(4)} {f64(3)} {f64(4)} None",
        f64(2),
        # The seed shows y_.grad = 6 (torch 1.x: retain_grad kept the gradient from before the hooks). Since
        # torch 2.0, a retained gradient is the one the hooks return (4 + 2*2 = 8); litnn does as torch 2.13.
        f"{f64(5)} {f64(8)}"]

_NET = '''
import torch
import torch.nn as nn
class net(nn.Module):
    def __init__(self):
        super(net, self).__init__()
        self.fc1 = nn.Linear(1, 2, bias=False)
        self.fc2 = nn.Linear(2, 1, bias=False)
        self._initialize()
    def _initialize(self):
        self.fc1.weight = nn.Parameter(
            torch.tensor([[2.], 
                          [2.]]))
        self.fc2.weight = nn.Parameter(torch.tensor([2., 2.]))
    def forward(self, x):
        return self.fc2(self.fc1(x))
def forward_hook_fn(module, input, output):
    print(module)
    print('feature input:', input)
    print('feature output:', output)
def backward_hook_fn(module, grad_input, grad_output):
    print(module)
    print('gradient input:', grad_input)
    print('gradient output:', grad_output)
model = net()
'''

def test_001_module_hooks_on_children(tmp_path):
    src = _NET + '''
modules = model.children()
for m in modules:
    m.register_forward_hook(forward_hook_fn)    # 作用于输出计算完成后,向前传播前
    m.register_backward_hook(backward_hook_fn)  # 作用与梯度计算完成后,向后传播前
x = torch.tensor([2.], requires_grad=True)
out = model(x)
out.backward()
print(x.grad)
'''
    out, _ = run(src, tmp_path)
    # The seed's output, with torch 2.13's node names (SqueezeBackward4, DotBackward0 for torch 1.x's
    # SqueezeBackward3, DotBackward).
    assert out == '''Linear(in_features=1, out_features=2, bias=False)
feature input: (tensor([2.], requires_grad=True),)
feature output: tensor([4., 4.], grad_fn=<SqueezeBackward4>)
Linear(in_features=2, out_features=1, bias=False)
feature input: (tensor([4., 4.], grad_fn=<SqueezeBackward4>),)
feature output: tensor(16., grad_fn=<DotBackward0>)
Linear(in_features=2, out_features=1, bias=False)
gradient input: (tensor([2., 2.]), tensor([4., 4.]))
gradient output: (tensor(1.),)
Linear(in_features=1, out_features=2, bias=False)
gradient input: (tensor([[2., 2.]]),)
gradient output: (tensor([2., 2.]),)
tensor([8.])
'''

def test_001_module_hooks_on_the_composite(tmp_path):
    src = _NET + '''
model.register_forward_hook(forward_hook_fn)
model.register_backward_hook(backward_hook_fn)
x = torch.tensor([2.], requires_grad=True)
out = model(x)
out.backward()
'''
    out, _ = run(src, tmp_path)
    repr_ = "net(\n  (fc1): Linear(in_features=1, out_features=2, bias=False)\n  (fc2): Linear(in_features=2, out_features=1, bias=False)\n)"
    assert out == (f"{repr_}\nfeature input: (tensor([2.], requires_grad=True),)\nfeature output: tensor(16., grad_fn=<DotBackward0>)\n"
                   f"{repr_}\ngradient input: (tensor([2., 2.]), tensor([4., 4.]))\ngradient output: (tensor(1.),)\n")

def test_001_and_002_apply_init_weights(tmp_path):
    src = '''
import torch
import torch.nn as nn
@torch.no_grad()
def init_weights(m):
    print(m)
    if type(m) == nn.Linear:
        m.weight.fill_(1.0)
        print(m.weight)
net = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
net.apply(init_weights)
'''
    out, _ = run(src, tmp_path)
    assert out.count('Parameter containing:\ntensor([[1., 1.],\n        [1., 1.]], requires_grad=True)') == 2
    assert out.endswith('Sequential(\n  (0): Linear(in_features=2, out_features=2, bias=True)\n'
                        '  (1): Linear(in_features=2, out_features=2, bias=True)\n)\n')

def test_001_to_four_forms(tmp_path):
    src = '''
import torch
import torch.nn as nn
m = nn.Linear(2, 2)
m.to(device=None, dtype=None, non_blocking=False)
print(m.weight.dtype)
m.to(torch.float64, non_blocking=False)
print(m.weight.dtype)
m.to(torch.zeros(1, dtype=torch.float16), non_blocking=False)
print(m.weight.dtype, m.weight.device)
c = nn.Conv2d(1, 2, 3)
c.to(memory_format=torch.channels_last)
print(c.weight.shape, c.weight.dtype)
'''
    out, _ = run(src, tmp_path)
    assert out == "torch.float32\ntorch.float64\ntorch.float16 cpu\ntorch.Size([2, 1, 3, 3]) torch.float32\n"

# ---- 002: Module's methods, checkpoints, GaussianModel ------------------------------------------

def test_002_model_with_convolutions(tmp_path):
    src = '''
import torch
import torch.nn as nn
import torch.nn.functional as F

class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 20, 5) #这里卷积层作为被包含的模块
        self.conv2 = nn.Conv2d(20, 20, 5)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        return F.relu(self.conv2(x))
model = Model()
print(model)
print(model(torch.ones(1, 1, 12, 12)).shape)
'''
    run(src, tmp_path)

def test_002_buffers(tmp_path):
    src = '''
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))
for buf in model.buffers():
    print(type(buf), buf.size())
'''
    out, _ = run(src, tmp_path)
    assert out.splitlines()[0] == "<class 'torch.Tensor'> torch.Size([4])"

def test_002_checkpoint_with_epoch_and_loss(tmp_path):
    src = '''
import torch
import torch.nn as nn
class TheModelClass(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)
        self.bn = nn.BatchNorm1d(2)
    def forward(self, x):
        return self.bn(self.fc(x))
model = TheModelClass()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
loss = (model(torch.arange(12.).reshape(4, 3)) - 1).pow(2).mean()
loss.backward()
optimizer.step()
epoch = 5
#保存checkpoint
torch.save({
            'epoch': epoch,
            'model_state_dict': model.state_dict(),#保存参数和buffer，可以用于推理
            'optimizer_state_dict': optimizer.state_dict(),#优化器
            'loss': loss,
            }, PATH)   # seed: its "..." (more entries) dropped: Ellipsis is no checkpoint entry
            
#加载checkpoint
saved = model
model = TheModelClass()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

checkpoint = torch.load(PATH)
model.load_state_dict(checkpoint['model_state_dict'])
optimizer.load_state_dict(checkpoint['optimizer_state_dict'])
epoch = checkpoint['epoch']
loss = checkpoint['loss']

model.eval()
# - or -
model.train()
print(epoch, all(torch.equal(a, b) for a, b in zip(saved.state_dict().values(), model.state_dict().values())))
print(sorted(optimizer.state_dict()['state'][0]), float(loss) > 0)
'''
    out, _ = run(src, tmp_path)
    assert out == "5 True\n['momentum_buffer'] True\n"

def test_002_batchnorm_buffers(tmp_path):
    src = '''
import torch
import torch.nn as nn
class BatchNorm(nn.Module):
    def __init__(self, num_features=3):      # seed: num_features was undefined
        super().__init__()                   # seed: missing; torch raises "cannot assign buffer before Module.__init__() call"
        self.register_buffer('running_mean', torch.zeros(num_features))
        self.register_buffer('running_variance', torch.ones(num_features))
bn = BatchNorm()
print(list(bn.state_dict()), bn.running_variance)
'''
    out, _ = run(src, tmp_path)
    assert out == "['running_mean', 'running_variance'] tensor([1., 1., 1.])\n"

def test_002_seed_batchnorm_as_written_fails_in_both():
    class Seed:   # the seed's class, without super().__init__()
        def __init__(self, lib):
            lib.nn.Module.register_buffer(self, 'running_mean', lib.zeros(3))
    for lib in (torch, litnn):
        with pytest.raises(AttributeError, match="cannot assign buffer before Module.__init__"): Seed(lib)

def test_002_gaussian_model(tmp_path):
    src = '''
import torch
import torch.nn as nn
class GaussianModel(nn.Module):
    def __init__(self):
        super(GaussianModel, self).__init__()

        # seed: torch.zeors -> torch.zeros (typo)
        self.register_parameter('mean',nn.Parameter(torch.zeros(1),requires_grad = True))

        # seed: state_dict()['means'] -> ['mean'] (the parameter is named mean)
        self.pdf = torch.distributions.Normal(self.state_dict()['mean'],torch.tensor([1.0]))

    def forward(self, x):
        return -self.pdf.log_prob(x)

model = GaussianModel()
print(model(torch.tensor([0.0, 1.0, -2.0])))
print([n for n, _ in model.named_parameters()])
'''
    out, _ = run(src, tmp_path)
    assert out == "tensor([0.9189, 1.4189, 2.9189])\n['mean']\n"

# ---- 000: concepts and methods -------------------------------------------------------------------

def test_000_state_dict_save_and_load(tmp_path):
    src = '''
import torch
import torch.nn as nn
net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
optimizer = torch.optim.Adam(net.parameters())
Epoch, LOSS = 3, 0.25
torch.save({'epoch':Epoch, 'model_state_dict':net.state_dict(),'optimizer_dict':optimizer.state_dict(),'loss':LOSS,},PATH)
checkpoint = torch.load(PATH)
model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
model.load_state_dict(checkpoint['model_state_dict'])
optimizer.load_state_dict(checkpoint['optimizer_dict'])   # seed: saved as 'optimizer_dict', read as 'optimizer_state_dict'
print(checkpoint['epoch'], checkpoint['loss'], torch.equal(model[0].weight, net[0].weight))
model = net
torch.save(model.state_dict(),'model_weights.pth')
model.load_state_dict(torch.load('model_weights.pth'))   # seed: torch.load_state_dict(...) -> model.load_state_dict(...)
print(sorted(torch.load('model_weights.pth')))
'''
    out, _ = run(src, tmp_path)
    assert out == "3 0.25 True\n['0.bias', '0.weight', '2.bias', '2.weight']\n"

def test_000_to_dtype_and_device(tmp_path):
    src = '''
import torch
x = torch.tensor([1, 2, 3])
x_float = x.to(torch.float32)
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = x.to(device)
print(x_float, x.device)
'''
    out, _ = run(src, tmp_path)
    assert out == f"tensor([1., 2., 3.]) {'cuda:0' if litnn.cuda.is_available() else 'cpu'}\n"

def test_000_get_parameter_the_way_torch_does(tmp_path):
    src = '''
import torch
import torch.nn as nn
model = nn.Sequential(nn.Sequential(nn.Linear(2, 2)))
target = "0.0.weight"
module_path,_,param_name=target.rpartition(".")
mod:torch.nn.Module = model.get_submodule(module_path)
if hasattr(mod,param_name):  param:torch.nn.Parameter = getattr(mod,param_name)
print(param is model.get_parameter(target), param.shape)
'''
    out, _ = run(src, tmp_path)
    assert out == "True torch.Size([2, 2])\n"

_TEST_MODULE = '''
import torch
import torch.nn as nn
class Test(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.drop = nn.Dropout(0.5)
        self.register_buffer('running_mean', torch.zeros(2))
        self.register_buffer('scratch', torch.zeros(2), persistent=False)
    def forward(self, x):
        return self.drop(self.fc(x))
test_module = Test()
'''

def test_000_methods_listed(tmp_path):
    "Every Module method and attribute the seeds list, used as they describe it."
    src = _TEST_MODULE + '''
print(str(test_module))
print(list(test_module.named_children()))
print([n for n, _ in test_module.named_modules()], len(list(test_module.modules())), len(list(test_module.children())))
print(list(test_module._parameters), list(test_module._buffers), list(test_module._modules), test_module._non_persistent_buffers_set)
print(list(test_module.state_dict()))
print([n for n, _ in test_module.named_parameters()], [n for n, _ in test_module.named_buffers()])
print(len(list(test_module.parameters())), len(list(test_module.buffers())))
names = dir(test_module)
print(all(n in names for n in ['fc', 'drop', 'running_mean', 'forward', 'training', 'state_dict', '_apply']))
test_module.eval(); print(test_module.training, test_module.drop.training)
test_module.train(); print(test_module.training, test_module.drop.training)
test_module.requires_grad_(False); print([p.requires_grad for p in test_module.parameters()])
test_module.requires_grad_(True)
test_module(torch.ones(1, 2)).sum().backward()
test_module.zero_grad(set_to_none=False); print([p.grad.abs().sum().item() for p in test_module.parameters()])
test_module.zero_grad(); print([p.grad for p in test_module.parameters()])
test_module.add_module('extra', nn.ReLU()); print(test_module.extra)
test_module.register_parameter('alpha', nn.Parameter(torch.ones(1))); print([n for n, _ in test_module.named_parameters()])
print(test_module.get_submodule('fc'), test_module.get_buffer('running_mean'))
print(test_module.bfloat16().fc.weight.dtype, test_module.half().fc.weight.dtype, test_module.float().fc.weight.dtype,
      test_module.double().fc.weight.dtype, test_module.type(torch.float32).fc.weight.dtype, test_module.cpu().fc.weight.device)
print(test_module._get_name(), repr(test_module.extra_repr()), test_module.fc.extra_repr())
print([n for n, _ in test_module._named_members(lambda m: m._buffers.items())])
print(test_module.share_memory() is test_module)
print(test_module._slow_forward(torch.ones(1, 2)).shape)
print(type(test_module.__getattr__('fc')).__name__)
net = test_module
net.fc.weight.requires_grad = False
print([(n, p.requires_grad) for n, p in net.named_parameters()])
'''
    run(src, tmp_path)

def test_000_hook_dicts_and_state_dict_hooks(tmp_path):
    src = _TEST_MODULE + '''
for name in ['_backward_hooks', '_forward_hooks', '_forward_pre_hooks', '_state_dict_hooks', '_load_state_dict_pre_hooks']:
    print(name, type(getattr(test_module, name)).__name__, len(getattr(test_module, name)))
print(test_module._is_full_backward_hook)
h = test_module._register_state_dict_hook(lambda module, state_dict, prefix, local_metadata: print('state_dict hook', list(state_dict)))
test_module.state_dict()
h.remove()
def pre_hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
    print('load pre-hook', prefix, sorted(state_dict))
test_module._register_load_state_dict_pre_hook(pre_hook)
print(test_module.load_state_dict(test_module.state_dict()))
destination = {}
test_module.fc._save_to_state_dict(destination, 'fc.', False)
print(sorted(destination))
'''
    run(src, tmp_path)

def test_000_setstate_getstate(tmp_path):
    src = _TEST_MODULE + '''
import copy, pickle
state = test_module.__getstate__()
print(sorted(k for k in state if k.startswith('_') and k.endswith('hooks'))[:3])
clone = copy.deepcopy(test_module)
print(torch.equal(clone.fc.weight, test_module.fc.weight), clone.fc.weight is test_module.fc.weight)
again = pickle.loads(pickle.dumps(nn.Sequential(nn.Linear(2, 2), nn.Dropout())))   # a class pickle can import
print(list(again.state_dict()), again.training)
fresh = Test.__new__(Test)
fresh.__setstate__(test_module.__dict__.copy())
print(list(fresh.state_dict()))
'''
    run(src, tmp_path)

def test_004_register_buffer_errors():
    "The checks of register_buffer that 004 reads out of torch's source: same exception types in litnn."
    for lib in (torch, litnn):
        m = lib.nn.Linear(1, 1)
        with pytest.raises(KeyError, match=r'contain "\."'): m.register_buffer('a.b', lib.zeros(1))
        with pytest.raises(KeyError, match='be empty string'): m.register_buffer('', lib.zeros(1))
        with pytest.raises(KeyError, match="attribute 'weight' already exists"): m.register_buffer('weight', lib.zeros(1))
        with pytest.raises(TypeError, match="cannot assign 'int' object to buffer 'b'"): m.register_buffer('b', 3)
        with pytest.raises(TypeError, match='buffer name should be a string'): m.register_buffer(1, lib.zeros(1))

def test_004_to_example(tmp_path):
    src = '''
import torch
import torch.nn as nn
linear = nn.Linear(2, 2)
print(linear.to(torch.double))
print(linear.weight.dtype)
# seed: linear.to(gpu1, dtype=torch.half, non_blocking=True) needs a second GPU: the same conversion on the CPU
cpu = torch.device("cpu")
print(linear.to(cpu, dtype=torch.half, non_blocking=True))
print(linear.weight.dtype)
print(linear.to(cpu))
'''
    out, _ = run(src, tmp_path)
    assert out.splitlines()[1::2] == ['torch.float64', 'torch.float16']

def test_004_chained_calls(tmp_path):
    src = '''
import torch
import torch.nn as nn
m = nn.Sequential(nn.Linear(2, 2), nn.Dropout())
print(m.train().eval().requires_grad_(False).float() is m, m.training)
'''
    out, _ = run(src, tmp_path)
    assert out == "True False\n"

# ---- 003: writing a model, built-in modules, Sequential, parameters ------------------------------

_NEURAL_NETWORK = '''
import os
import torch
from torch import nn
# seed: `from torch.utils.data import DataLoader` and `from torchvision import datasets, transforms` are
# imported and not used; torchvision is not installed here
from torch.utils.data import DataLoader

class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28*28, 512),
            nn.ReLU(),
            nn.Linear(512, 512),
            nn.ReLU(),
            nn.Linear(512, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits
device = "cpu"
model = NeuralNetwork().to(device)
print(model) # 打印model
'''

def test_003_neural_network(tmp_path):
    src = _NEURAL_NETWORK + '''
X = torch.rand(1, 28, 28, device=device)
logits = model(X) # 不要直接调用forward --> 首先要调用_call_impl
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred.shape}")   # seed prints y_pred itself: a random class, so its shape here
'''
    out, _ = run(src, tmp_path.joinpath())
    assert out.startswith("NeuralNetwork(\n  (flatten): Flatten(start_dim=1, end_dim=-1)\n  (linear_relu_stack): Sequential(\n")

def test_003_built_in_modules(tmp_path):
    src = '''
import torch
from torch import nn
input_image = torch.rand(3,28,28)
print(input_image.size())

flatten = nn.Flatten()
flat_image = flatten(input_image)
print(flat_image.size())

layer1 = nn.Linear(in_features=28*28, out_features=20)
hidden1 = layer1(flat_image)
print(hidden1.size())

hidden1 = nn.ReLU()(hidden1)
print(f"After ReLU: {(hidden1 >= 0).all()}")   # seed prints the random values before and after ReLU

seq_modules = nn.Sequential(
    flatten,
    layer1,
    nn.ReLU(),
    nn.Linear(20, 10)
)
input_image = torch.rand(3,28,28)
logits = seq_modules(input_image)
print(logits.shape, len(seq_modules), seq_modules[0] is flatten)
'''
    out, _ = run(src, tmp_path)
    assert out.splitlines()[:3] == ['torch.Size([3, 28, 28])', 'torch.Size([3, 784])', 'torch.Size([3, 20])']

def test_003_model_parameters(tmp_path):
    src = _NEURAL_NETWORK + '''
print(f"Model structure: {model}\\n\\n")

for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2].shape} \\n")   # seed prints random values
'''
    out, _ = run(src, tmp_path)
    assert "Layer: linear_relu_stack.0.weight | Size: torch.Size([512, 784]) | Values : torch.Size([2, 784])" in out

def test_003_tiny_model(tmp_path):
    src = '''
import torch
class TinyModel(torch.nn.Module):
    def __init__(self):
        super(TinyModel, self).__init__()

        self.linear1 = torch.nn.Linear(100, 200)
        self.activation = torch.nn.ReLU()
        self.linear2 = torch.nn.Linear(200, 10)
        self.softmax = torch.nn.Softmax()
    def forward(self, x):
        x = self.linear1(x)
        x = self.activation(x)
        x = self.linear2(x)
        x = self.softmax(x)
        return x
tinymodel = TinyModel()
print('The model:')
print(tinymodel)
print('\\n\\nJust one layer:')
print(tinymodel.linear2)
print('\\n\\nModel params:')
for param in tinymodel.parameters():
    print(type(param).__name__, param.shape)   # seed prints each parameter's random values
print('\\n\\nLayer params:')
for param in tinymodel.linear2.parameters():
    print(type(param).__name__, param.shape)
print(tinymodel(torch.rand(2, 100)).sum(1).round())
'''
    out, _ = run(src, tmp_path)
    assert "  (softmax): Softmax(dim=None)\n" in out and out.endswith("tensor([1., 1.], grad_fn=<RoundBackward0>)\n")

def test_003_functional_forms_are_one_function():
    "003: torch.conv2d and torch.nn.functional.conv2d are the same function; nn.Conv2d calls it."
    import litnn.nn.functional as F
    assert litnn.conv2d is F.conv2d and torch.conv2d is torch.nn.functional.conv2d
    x, w = litnn.ones(1, 1, 4, 4), litnn.ones(2, 1, 3, 3)
    assert litnn.conv2d(x, w).tolist() == torch.conv2d(torch.ones(1, 1, 4, 4), torch.ones(2, 1, 3, 3)).tolist()

