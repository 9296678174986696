"""Grad mode and inference mode belong to a thread, as in PyTorch (nbs/13b_grad_modes): each case runs the same
program on litnn and torch and compares what every thread saw."""
import threading
import pytest
import litnn, torch

LIBS = [litnn, torch]

def in_thread(fn):
    "Run `fn` in a fresh thread and return its result (or raise its exception)."
    out = {}
    def run():
        try: out['r'] = fn()
        except BaseException as e: out['e'] = e
    t = threading.Thread(target=run); t.start(); t.join()
    if 'e' in out: raise out['e']
    return out['r']

def seen_from_a_thread(lib):
    "What a new thread sees while the main thread is inside no_grad / inference_mode / set_grad_enabled(False)."
    r = {}
    with lib.no_grad(): r['no_grad'] = in_thread(lambda: (lib.is_grad_enabled(), lib.is_inference_mode_enabled()))
    with lib.inference_mode(): r['inference'] = in_thread(lambda: (lib.is_grad_enabled(), lib.is_inference_mode_enabled()))
    prev = lib.is_grad_enabled()
    lib.set_grad_enabled(False)
    try:
        r['set_false'] = in_thread(lambda: lib.is_grad_enabled())
        x = in_thread(lambda: lib.ones(2, requires_grad=True) * 2)
        r['records'] = (x.requires_grad, x.grad_fn is not None)
    finally: lib.set_grad_enabled(prev)
    return r

def test_a_new_thread_starts_with_grad_on():
    got = seen_from_a_thread(litnn)
    assert got == seen_from_a_thread(torch)
    assert got['no_grad'] == (True, False) and got['records'] == (True, True)

def test_a_thread_setting_the_mode_leaves_the_main_thread_alone():
    for lib in LIBS:
        def off():
            lib.set_grad_enabled(False)           # left off in that thread, never restored
            return lib.is_grad_enabled()
        assert in_thread(off) is False
        assert lib.is_grad_enabled() is True, lib.__name__
        def inf():
            m = lib.inference_mode(); m.__enter__()     # never left
            return lib.is_inference_mode_enabled(), lib.ones(1).is_inference()
        assert in_thread(inf) == (True, True)
        assert lib.is_inference_mode_enabled() is False and not lib.ones(1).is_inference()

@pytest.mark.parametrize('mode', ['no_grad', 'inference_mode'])
def test_overlapping_blocks_in_two_threads_restore_each_threads_mode(mode):
    "The order that breaks one shared flag: A enters, B enters, A leaves, B leaves (B would restore A's False)."
    def run(lib):
        ctx = getattr(lib, mode)
        a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
        seen = {}
        def a():
            with ctx():
                a_in.set(); b_in.wait(5)
            seen['a_after'] = lib.is_grad_enabled()
            a_out.set()
        def b():
            a_in.wait(5)
            with ctx():
                b_in.set(); a_out.wait(5)
                seen['b_inside'] = lib.is_grad_enabled()
            seen['b_after'] = lib.is_grad_enabled()
        ts = [threading.Thread(target=a), threading.Thread(target=b)]
        for t in ts: t.start()
        for t in ts: t.join()
        seen['main'] = lib.is_grad_enabled()
        w = lib.ones(2, requires_grad=True)
        seen['main_records'] = (w * 3).grad_fn is not None
        return seen
    got = run(litnn)
    assert got == run(torch)
    assert got == dict(a_after=True, b_inside=False, b_after=True, main=True, main_records=True)

def test_training_in_a_thread_while_the_main_thread_evaluates():
    "A thread's backward records its graph even while the main thread sits in no_grad, as torch's."
    def run(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        def train():
            (w * w).sum().backward()
            return w.grad.tolist()
        with lib.no_grad():
            g = in_thread(train)
            y = w * 2
        return g, y.requires_grad
    assert run(litnn) == run(torch) == ([2.0, 4.0], False)
