"""Third-party programs run against litnn (facebookresearch/DiT, lucidrains/denoising-diffusion-pytorch, openai/whisper,
torchvision's model files, ...): what differed from torch 2.13, each as a small self-contained case compared with torch."""
import warnings
import numpy as np, pytest
import litnn

torch = pytest.importorskip('torch')


# torchvision's efficientnet_v2_s and regnet_y_400mf, trained at a high learning rate, overflow float32 activations; the
# adaptive average pool's mean (numpy's own Python, `numpy/_core/_methods.py`, called by litnn) then printed numpy's
# "overflow encountered in reduce", which torch never does: litnn's guard only knew warnings whose frame was litnn's
def test_no_numpy_overflow_warning_from_a_mean_over_huge_activations():
    outs = {}
    for lib in (torch, litnn):
        x = lib.full((2, 3, 4, 4), 3e38)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            r = [lib.nn.functional.adaptive_avg_pool2d(x, 1), x.mean((-2, -1)), x.sum(0), x.var(0), x.to(lib.float16).mean()]
        outs[lib.__name__] = [t.float().numpy() for t in r], [str(w.message) for w in caught]
    for a, b in zip(outs['torch'][0], outs['litnn'][0]): np.testing.assert_array_equal(a, b)
    assert outs['litnn'][1] == outs['torch'][1] == []
    with warnings.catch_warnings(record=True) as caught:     # a program's own numpy still warns
        warnings.simplefilter('always')
        np.full(2, 3e38, np.float32).mean()
    assert [str(w.message) for w in caught] == ['overflow encountered in reduce']
