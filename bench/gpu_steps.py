"""Training steps on a GPU: litnn on CuPy against PyTorch on CUDA, the same program in both, same weights.

    python bench/gpu_steps.py                # --device cuda (needs CuPy, an NVIDIA GPU and torch with CUDA)
    python bench/gpu_steps.py --device cpu   # the same steps on the CPU (to check the script where there is no GPU)
    python bench/gpu_steps.py --compiled     # also litnn.compile(step) (capture and replay) and, on a GPU,
                                             # mode="reduce-overhead" (the replay is a CUDA graph); issue 30's targets

Steps (each: forward, cross-entropy, backward, SGD with momentum):
- MLP 784-512-512-10 at batch 64 and at batch 1024;
- CNN: Conv2d(1, 16, 3, padding=1), ReLU, MaxPool2d(2), Conv2d(16, 32, 3, padding=1), ReLU, MaxPool2d(2), Linear(32*7*7, 10)
  at batch 128 of 1x28x28.
Before timing, the two libraries' losses and gradients are compared (float32). Each timing synchronizes the device.
Prints medians and `litnn / torch` per step; a ratio above 1 means litnn is slower.
"""
import argparse, statistics, sys, time
import numpy as np


def sync(lib, device):
    "Wait for the device's queued work: GPU timings without it measure only the launch."
    if device != 'cuda': return
    if lib.__name__ == 'torch': lib.cuda.synchronize()
    else:
        import cupy
        cupy.cuda.Device().synchronize()


def mlp(nn): return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))


def cnn(nn):
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(32 * 7 * 7, 10))


def make_step(lib, build, weights, x, y, device):
    "A training step of `build(lib.nn)` with `weights` (numpy, in state_dict order), on `device`."
    model = build(lib.nn)
    with lib.no_grad():
        for p, w in zip(model.parameters(), weights): p.copy_(lib.tensor(w))
    model.to(device)
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = lib.nn.CrossEntropyLoss()
    x, y = lib.tensor(x).to(device), lib.tensor(y).to(device)
    def step():
        loss = loss_fn(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss
    return step, model


def host(t): return np.asarray(t.detach().cpu().numpy(), np.float64)


def check(steps):
    "The first step of both libraries: same loss, same gradients (float32 tolerance)."
    (la, ma), (lb, mb) = steps['litnn'], steps['torch']
    a, b = host(la()), host(lb())
    assert np.allclose(a, b, rtol=1e-4, atol=1e-5), (a, b)
    for pa, pb in zip(ma.parameters(), mb.parameters()):
        ga, gb = host(pa.grad), host(pb.grad)
        assert np.allclose(ga, gb, rtol=1e-3, atol=1e-3 * np.abs(gb).max() + 1e-5), np.abs(ga - gb).max()   # float32 sums of 1024 terms


def timed(steps, device, reps=15, inner=10, warmup=5):
    "Median seconds per step of each library, runs interleaved."
    out = {k: [] for k in steps}
    for k, (f, _) in steps.items():
        for _ in range(warmup): f()
        sync(LIBS[k], device)
    for _ in range(reps):
        for k, (f, _) in steps.items():
            sync(LIBS[k], device)
            t = time.perf_counter()
            for _ in range(inner): f()
            sync(LIBS[k], device)
            out[k].append((time.perf_counter() - t) / inner)
    return {k: statistics.median(v) for k, v in out.items()}


def main(argv=None):
    global LIBS
    p = argparse.ArgumentParser(description='litnn (CuPy) vs torch (CUDA) training steps')
    p.add_argument('--device', choices=['cuda', 'cpu'], default='cuda')
    p.add_argument('--reps', type=int, default=15)
    p.add_argument('--compiled', action='store_true', help='also time litnn.compile(step), and mode="reduce-overhead" on a GPU')
    args = p.parse_args(argv)
    import litnn, torch
    LIBS = {'litnn': litnn, 'torch': torch}
    if args.device == 'cuda':
        if not litnn.cuda.is_available(): sys.exit('gpu_steps.py: litnn sees no GPU (CuPy and an NVIDIA GPU are needed)')
        if not torch.cuda.is_available(): sys.exit('gpu_steps.py: torch sees no GPU (a CUDA build of torch is needed)')
    else: torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    cases = [('MLP 784-512-512-10, batch 64', mlp, (64, 784)), ('MLP 784-512-512-10, batch 1024', mlp, (1024, 784)),
             ('CNN 2 conv + linear, batch 128 of 1x28x28', cnn, (128, 1, 28, 28))]
    ratios = {}
    for title, build, shape in cases:
        weights = [p.detach().numpy().copy() for p in build(torch.nn).parameters()]
        x = rng.standard_normal(shape).astype(np.float32)
        y = rng.integers(0, 10, shape[0])
        steps = {k: make_step(lib, build, weights, x, y, args.device) for k, lib in LIBS.items()}
        check(steps)
        if args.compiled:   # each compiled step trains its own copy of the model, from the same weights
            modes = ['default'] + (['reduce-overhead'] if args.device == 'cuda' else [])
            for mode in modes:
                f, m = make_step(litnn, build, weights, x, y, args.device)
                name = 'litnn compiled' if mode == 'default' else f'litnn {mode}'
                LIBS[name] = litnn
                steps[name] = (litnn.compile(f, mode=mode), m)
                check({'litnn': steps[name], 'torch': make_step(torch, build, weights, x, y, args.device)})
        med = timed(steps, args.device, reps=args.reps)
        ratios[title] = med['litnn'] / med['torch']
        print(f"\n{title} on {args.device}: one SGD step")
        for k, v in med.items(): print(f"  {k:24s} {v * 1e3:9.3f} ms" + ('' if k == 'torch' else f"   {k} / torch = {v / med['torch']:.2f}"))
        print(f"  litnn / torch = {ratios[title]:.2f}")
    return ratios


if __name__ == '__main__': main()
