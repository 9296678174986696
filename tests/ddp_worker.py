"""Run by tests/test_ddp.py under `mpiexec -n 2`: DDP, SyncBatchNorm and DistributedSampler checks on real processes.
Each rank writes its results as JSON to <outdir>/rank<r>.json (numbers: largest differences from one-process training)."""
import copy, json, sys
import litnn
import litnn.distributed as dist
from litnn import nn
from litnn.nn.parallel import DistributedDataParallel as DDP
from litnn.distributed.algorithms.ddp_comm_hooks import default_hooks
from litnn.utils.data.distributed import DistributedSampler

def model(seed):
    litnn.manual_seed(seed)
    return nn.Sequential(nn.Linear(10, 32, bias=False), nn.BatchNorm1d(32),   # no bias before BN: its gradient is 0 + round-off, which Adam would amplify
                          nn.ReLU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 3))

def data(n=16):
    g = litnn.Generator().manual_seed(123)
    return litnn.randn(n, 10, generator=g), litnn.randint(0, 3, (n,), generator=g)

def max_diff(a, b): return max((x - y).abs().max().item() for x, y in zip(a, b))

def train(opt_name, steps=20, sync_bn=True, **ddp_kw):
    "20 steps of DDP on half batches against one process on the full batch; the largest parameter and buffer differences."
    rank, world = dist.get_rank(), dist.get_world_size()
    single = model(0)
    replica = model(rank)            # different on each rank: DDP must broadcast rank 0's
    if sync_bn: replica = nn.SyncBatchNorm.convert_sync_batchnorm(replica)
    ddp = DDP(replica, **ddp_kw)
    make = (lambda ps: litnn.optim.SGD(ps, lr=0.1, momentum=0.9)) if opt_name == 'sgd' else (lambda ps: litnn.optim.Adam(ps, lr=1e-2, eps=1e-3))   # eps above round-off: a gradient of pure round-off (0 summed in two orders) stays small, where Adam's default 1e-8 would blow it up to lr
    opt_s, opt_d = make(single.parameters()), make(ddp.parameters())
    loss_fn = nn.CrossEntropyLoss()
    for step in range(steps):
        x, y = data()
        x = x + step * 0.01
        opt_s.zero_grad(); loss_fn(single(x), y).backward(); opt_s.step()
        half = slice(rank * len(x) // world, (rank + 1) * len(x) // world)
        opt_d.zero_grad(); loss_fn(ddp(x[half]), y[half]).backward(); opt_d.step()
    return {'params': max_diff(single.parameters(), replica.parameters()),
            'buffers': max_diff([b.float() for b in single.buffers()], [b.float() for b in replica.buffers()]),
            'buckets': [b.indices for b in ddp.reducer.buckets]}

def no_sync_check():
    "Two micro-batches accumulated under no_sync, a third synchronized: the gradient of the three full batches."
    rank = dist.get_rank()
    single, replica = model(0), nn.SyncBatchNorm.convert_sync_batchnorm(model(0))
    ddp = DDP(replica)
    loss_fn = nn.CrossEntropyLoss()
    x, y = data(24)
    chunks = [(x[i * 8:(i + 1) * 8], y[i * 8:(i + 1) * 8]) for i in range(3)]
    for xc, yc in chunks: loss_fn(single(xc), yc).backward()
    with ddp.no_sync():
        for xc, yc in chunks[:2]: loss_fn(ddp(xc[rank * 4:rank * 4 + 4]), yc[rank * 4:rank * 4 + 4]).backward()
        inside = [p.grad.clone() for p in replica.parameters()]
    other = [p.grad.clone() for p in replica.parameters()]
    for g in other: dist.all_reduce(g)
    local_differs = max_diff(inside, [g / 2 for g in other]) > 1e-6        # before the sync the ranks' gradients differ
    xc, yc = chunks[2]
    loss_fn(ddp(xc[rank * 4:rank * 4 + 4]), yc[rank * 4:rank * 4 + 4]).backward()
    return {'grads': max_diff([p.grad for p in single.parameters()], [p.grad for p in replica.parameters()]), 'local_differs': local_differs}

class Branchy(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b, self.c = nn.Linear(4, 4), nn.Linear(4, 4), nn.Linear(4, 2)
    def forward(self, x, use_b): return self.c(self.b(self.a(x)) if use_b else self.a(x))

def unused_check():
    "find_unused_parameters: a branch no rank uses keeps grad None; one rank's branch is averaged with zeros."
    rank = dist.get_rank()
    out = {}
    litnn.manual_seed(0); net = Branchy(); ddp = DDP(net, find_unused_parameters=True)
    ddp(litnn.ones(2, 4), use_b=False).sum().backward()
    out['globally_unused_is_none'] = net.b.weight.grad is None and net.b.bias.grad is None
    net.zero_grad()
    ddp(litnn.ones(2, 4), use_b=(rank == 0)).sum().backward()
    litnn.manual_seed(0); ref = Branchy()
    ref(litnn.ones(2, 4), use_b=True).sum().backward()
    out['locally_unused_averaged'] = (net.b.weight.grad - ref.b.weight.grad / 2).abs().max().item()
    litnn.manual_seed(0); net = Branchy(); ddp = DDP(net)
    ddp(litnn.ones(2, 4), use_b=False).sum().backward()
    try: ddp(litnn.ones(2, 4), use_b=False); out['unfinished_error'] = None
    except RuntimeError as e: out['unfinished_error'] = str(e)
    return out

def hooks_check():
    "allreduce_hook gives the default's gradients; fp16_compress_hook the same to float16 precision."
    rank = dist.get_rank()
    x, y = data()
    half = slice(rank * 8, rank * 8 + 8)
    grads = {}
    for name in ('none', 'allreduce', 'fp16'):
        net = model(0); ddp = DDP(net)
        if name != 'none': ddp.register_comm_hook(None, getattr(default_hooks, name + ('_hook' if name == 'allreduce' else '_compress_hook')))
        nn.CrossEntropyLoss()(ddp(x[half]), y[half]).backward()
        grads[name] = [p.grad.clone() for p in net.parameters()]
    try: ddp.register_comm_hook(None, default_hooks.allreduce_hook); twice = None
    except RuntimeError as e: twice = str(e)
    return {'allreduce': max_diff(grads['none'], grads['allreduce']), 'fp16': max_diff(grads['none'], grads['fp16']), 'twice': twice}

def agreed_check():
    "A bucket's first reduction exchanges the ranks' signatures; once its layout has passed, its reductions skip that round trip."
    from litnn.distributed import distributed_c10d as c10d
    rank, count, encode = dist.get_rank(), [0], c10d._encode_signature
    def counting(desc): count[0] += 1; return encode(desc)
    net = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 3))    # no buffers: no broadcast in forward
    ddp, (x, y), per_step = DDP(net, bucket_cap_mb=0.0003), data(), []   # 314 bytes: the rebuilt layout has two buckets
    c10d._encode_signature = counting
    try:
        for _ in range(5):
            count[0] = 0
            nn.CrossEntropyLoss()(ddp(x[rank * 8:rank * 8 + 8]), y[rank * 8:rank * 8 + 8]).backward()
            per_step.append(count[0])
    finally: c10d._encode_signature = encode
    return {'signatures_per_step': per_step, 'buckets': len(ddp.reducer.buckets)}

def sampler_check():
    s = DistributedSampler(list(range(11)), seed=5)
    return {'num_replicas': s.num_replicas, 'rank': s.rank, 'indices': list(s)}

def state_check():
    "Construction broadcasts rank 0's parameters and buffers; state_dict keys gain `module.`."
    net = model(dist.get_rank())
    with litnn.no_grad(): net[1].running_mean.fill_(float(dist.get_rank()))
    ddp = DDP(net)
    ref = model(0)
    return {'params': max_diff(ref.parameters(), net.parameters()), 'running_mean': net[1].running_mean.abs().max().item(),
            'keys': list(ddp.state_dict())[:3]}

def syncbn_check():
    "SyncBatchNorm on half batches against one BatchNorm on the full batch: outputs, input and parameter gradients, running stats."
    rank, out = dist.get_rank(), {}
    for name, shape, momentum, dtype, bn in [('1d', (8, 3), 0.1, litnn.float32, nn.BatchNorm1d), ('1d_seq', (8, 3, 5), None, litnn.float32, nn.BatchNorm1d),
                                             ('2d_f64', (6, 4, 3, 3), 0.3, litnn.float64, nn.BatchNorm2d)]:
        g = litnn.Generator().manual_seed(7)
        full, sync = bn(shape[1], momentum=momentum, dtype=dtype), nn.SyncBatchNorm(shape[1], momentum=momentum, dtype=dtype)
        with litnn.no_grad():
            w, b = litnn.randn(shape[1], generator=g, dtype=dtype), litnn.randn(shape[1], generator=g, dtype=dtype)
            for m in (full, sync): m.weight.copy_(w); m.bias.copy_(b)
        worst = 0.0
        for it in range(3):
            x = (litnn.randn(*shape, generator=g, dtype=dtype) * 2 + 1).requires_grad_()
            gy = litnn.randn(*shape, generator=g, dtype=dtype)
            half = slice(rank * shape[0] // 2, (rank + 1) * shape[0] // 2)
            xs = x.detach()[half].clone().requires_grad_()
            yf, ys = full(x), sync(xs)
            (yf * gy).sum().backward(); (ys * gy[half]).sum().backward()
            worst = max(worst, (yf[half] - ys).abs().max().item(), (x.grad[half] - xs.grad).abs().max().item())
        for p in sync.parameters(): dist.all_reduce(p.grad)
        worst = max(worst, max_diff([p.grad for p in full.parameters()], [p.grad for p in sync.parameters()]),
                    max_diff([full.running_mean, full.running_var], [sync.running_mean, sync.running_var]))
        full.eval(); sync.eval()
        x = litnn.randn(*shape, generator=g, dtype=dtype)
        out[name] = max(worst, (full(x) - sync(x)).abs().max().item())
    return out

def run_job(outdir):
    "Run this file on 2 MPI processes (once per pytest session); each rank's results."
    import os
    from pathlib import Path
    if outdir in _JOBS: return _JOBS[outdir]
    Path(outdir).mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent), "OMP_NUM_THREADS": "1"}
    from mpi_launch import mpiexec
    r = mpiexec(2, [sys.executable, __file__, outdir], timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    _JOBS[outdir] = [json.loads((Path(outdir) / f"rank{i}.json").read_text()) for i in range(2)]
    return _JOBS[outdir]
_JOBS = {}

if __name__ == '__main__':
    dist.init_process_group('gloo')
    res = {'state': state_check(), 'sgd': train('sgd'), 'adam': train('adam'),
           'adam_small_buckets': train('adam', bucket_cap_mb=0.001, gradient_as_bucket_view=True),
           'sgd_find_unused': train('sgd', find_unused_parameters=True),
           'no_sync': no_sync_check(), 'unused': unused_check(), 'hooks': hooks_check(), 'agreed': agreed_check(), 'sampler': sampler_check(), 'syncbn': syncbn_check()}
    with open(f"{sys.argv[1]}/rank{dist.get_rank()}.json", 'w') as f: json.dump(res, f)
