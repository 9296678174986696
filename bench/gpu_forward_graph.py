"""A forward under `no_grad` as a CUDA graph: litnn.compile(mode="reduce-overhead") against torch eager and torch's own
CUDA graph of the same model, same weights (issue 30, item 2).

    python bench/gpu_forward_graph.py                # --device cuda (CuPy, an NVIDIA GPU, torch with CUDA)
    python bench/gpu_forward_graph.py --device cpu   # the same rows on the CPU, no graphs (to check the script)

Model: the MLP 784-512-512-10 at batch 64 and 1024. Rows: litnn eager, litnn compiled (mode default: the lowered replay),
litnn reduce-overhead (on a GPU, one graph launch: `litnn/_dynamo/eval_frame._graphed`), torch eager, and on a GPU torch's
CUDA graph (`torch.cuda.graph`). Before timing, each litnn row's output is compared with torch's (float32 tolerance) and the
reduce-overhead row is checked to be a graph (`graph_skip` is None). Each timing synchronizes the device; medians.
First measured on an H200 (2026-12-04): batch 64 0.036 ms against torch eager's 0.101 (0.36x), batch 1024 1.10x.
"""
import argparse, statistics, sys, time
import numpy as np


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--device', choices=['cuda', 'cpu'], default='cuda')
    p.add_argument('--reps', type=int, default=7)
    args = p.parse_args(argv)
    import litnn, torch
    cuda = args.device == 'cuda'
    if cuda and not (litnn.cuda.is_available() and torch.cuda.is_available()):
        sys.exit('gpu_forward_graph.py: litnn (CuPy) and torch must both see a GPU; --device cpu runs without one')
    if not cuda: torch.set_num_threads(1)

    def sync():
        if cuda:
            import cupy
            cupy.cuda.Device().synchronize(); torch.cuda.synchronize()

    def timed(f, inner=100 if cuda else 10):
        for _ in range(5): f()
        sync(); ts = []
        for _ in range(args.reps):
            t = time.perf_counter()
            for _ in range(inner): f()
            sync(); ts.append((time.perf_counter() - t) / inner)
        return statistics.median(ts)

    build = lambda nn: nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    ratios = {}
    for batch in (64, 1024):
        tm = build(torch.nn).to(args.device)
        lm = build(litnn.nn)
        lm.load_state_dict({k: litnn.tensor(v.detach().cpu().numpy()) for k, v in tm.state_dict().items()})
        lm.to(args.device)
        x = np.random.default_rng(0).standard_normal((batch, 784)).astype(np.float32)
        tx, lx = torch.tensor(x).to(args.device), litnn.tensor(x).to(args.device)
        with litnn.no_grad(), torch.no_grad():
            rows = {'litnn eager': lambda: lm(lx), 'litnn compiled': litnn.compile(lm), 'litnn reduce-overhead': litnn.compile(lm, mode='reduce-overhead')}
            want = tm(tx).cpu().numpy()
            for name, f in rows.items():
                for _ in range(3): out = f(lx) if name != 'litnn eager' else f()
                assert np.allclose(out.cpu().numpy(), want, rtol=1e-4, atol=1e-5), name
            graphed = rows['litnn reduce-overhead']
            progs = [p for ps in graphed._compiled.cache.values() for p in ps]
            if cuda and any(getattr(p, 'graph_skip', None) for p in progs):
                print(f"  (no CUDA graph: {progs[0].graph_skip})")
            fns = {'litnn eager': rows['litnn eager'], 'litnn compiled': lambda: rows['litnn compiled'](lx),
                   'litnn reduce-overhead': lambda: graphed(lx), 'torch eager': lambda: tm(tx)}
            if cuda:
                g, sx = torch.cuda.CUDAGraph(), tx.clone()
                s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    for _ in range(3): tm(sx)
                torch.cuda.current_stream().wait_stream(s)
                with torch.cuda.graph(g): tm(sx)
                fns['torch CUDA graph'] = lambda: (sx.copy_(tx), g.replay())
            med = {k: timed(f) for k, f in fns.items()}
        print(f"\nMLP 784-512-512-10 forward under no_grad, batch {batch}, on {args.device}")
        for k, v in med.items():
            print(f"  {k:22s} {v * 1e3:8.4f} ms" + ('' if k.startswith('torch') else f"   {k} / torch eager = {v / med['torch eager']:.2f}"))
        ratios[batch] = med['litnn reduce-overhead'] / med['torch eager']
    return ratios


if __name__ == '__main__': main()
