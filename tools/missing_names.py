"""Public names of torch and torch.Tensor that litnn lacks: `python tools/missing_names.py [--all]`.

By default leaves out the families litnn does not model (sparse, quantized, complex views, storages, other
devices' kernels, symbolic shapes); `--all` lists everything."""
import sys, re
import torch, litnn

SKIP = re.compile(r'sparse|quantiz|q_|qscheme|int_repr|dequantize|complex|conj|real$|imag$|_indices|indices$|values$|storage|'
                  r'stft|istft|cudnn|miopen|mkldnn|fbgemm|mps|xpu|ipu|mtia|xla|vulkan|sym_|autocast|_copy$|coalesce|'
                  r'to_dense|to_padded|nested|resize|set_|record_stream|ir_|type_comment|parse_|fork|wait$|dlpack')

def missing(space, names, everything):
    out = []
    for n in sorted(names):
        if n.startswith('_') or hasattr(space, n) or (not everything and SKIP.search(n)): continue
        out.append(n)
    return out

if __name__ == '__main__':
    everything = '--all' in sys.argv
    tensor = missing(litnn.Tensor, dir(torch.Tensor), everything)
    funcs = missing(litnn, [n for n in dir(torch) if callable(getattr(torch, n)) and not isinstance(getattr(torch, n), type)], everything)
    print(f'Tensor methods ({len(tensor)}):', ' '.join(tensor))
    print(f'\ntorch functions ({len(funcs)}):', ' '.join(funcs))
