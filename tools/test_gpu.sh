#!/usr/bin/env bash
# Everything litnn has for the GPU, in one command, on a machine with an NVIDIA GPU, CuPy and a CUDA build
# of torch, without network:
#   0. installs what else is needed from a folder of wheels, if there is one ($LITNN_WHEELS, default ./wheels;
#      see bench/README.md for how to make it); litnn itself runs from this checkout (PYTHONPATH), uninstalled;
#   1. checks that CuPy, litnn and torch all see a GPU (exit 2 with the reason if not);
#   2. tests/ (the GPU variants of the tests run when a GPU is there; a GPU test that skips is a failure);
#   3. every notebook with `nbdev_test --flags cuda` (the cells marked `#| cuda` too);
#   4. the GPU benchmarks against torch CUDA (bench/gpu_steps.py: MLP and CNN steps, eager and compiled;
#      bench/gpu_forward_graph.py: a forward as a CUDA graph; bench/gpt_step.py --device cuda), printing litnn / torch ratios.
# Steps 2-4 all run; the exit status is 1 if any failed. Run from anywhere: bash tools/test_gpu.sh
# `bash tools/test_gpu.sh bench tests` runs only the steps named (tests, notebooks, bench), in that order: on a lent
# machine with little time, the benchmarks first. Tests and notebooks run in $LITNN_GPU_JOBS processes (default: the
# CPU count; pytest-xdist spreads the tests when it is installed); the logs go to $LITNN_GPU_LOG (default: a new
# temporary folder).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=${PYTHON:-python}
WHEELS=${LITNN_WHEELS:-wheels}
# What the GPU machine may lack (it has CuPy and torch): litnn's dependencies and its test tools, pinned as in settings.ini.
NEEDS="numpy>=2 ml_dtypes>=0.4 safetensors>=0.4 tqdm>=4.66 matplotlib pytest hypothesis nbdev==2.4.14 execnb==0.1.18 fastcore==1.14.5 ghapi==1.1.1 torchinfo>=1.8"
LOG=${LITNN_GPU_LOG:-$(mktemp -d "${TMPDIR:-/tmp}/litnn-gpu.XXXXXX")}; mkdir -p "$LOG"
JOBS=${LITNN_GPU_JOBS:-$(nproc 2>/dev/null || echo 2)}
STEPS=("$@"); [ ${#STEPS[@]} -gt 0 ] || STEPS=(tests notebooks bench)
for s in "${STEPS[@]}"; do case $s in tests|notebooks|bench) ;; *) echo "test_gpu.sh: unknown step '$s' (tests, notebooks, bench)" >&2; exit 1;; esac; done
wants() { [[ " ${STEPS[*]} " == *" $1 "* ]]; }
say() { printf '\n==== %s ====\n' "$*"; }

if [ -d "$WHEELS" ]; then
    say "0/4 installing from $WHEELS (no network)"
    # shellcheck disable=SC2086
    "$PY" -m pip install -q --no-index --find-links "$WHEELS" $NEEDS || { echo "test_gpu.sh: installing from $WHEELS failed" >&2; exit 1; }
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

say "1/4 is there a GPU?"
"$PY" - <<'PYEOF' || exit 2
import sys
def no(why): sys.exit(f"test_gpu.sh: no GPU to test on: {why}. Run this on a machine with an NVIDIA GPU, CuPy and a CUDA build of torch.")
try: import cupy
except ImportError as e: no(f"CuPy is not installed ({e})")
try: n = cupy.cuda.runtime.getDeviceCount()
except Exception as e: no(f"CuPy finds no NVIDIA GPU ({type(e).__name__}: {e})")
if n < 1: no("CuPy finds no NVIDIA GPU (0 devices)")
try: import litnn
except ImportError as e: no(f"litnn cannot be imported ({e}); install its dependencies (bench/README.md)")
if not litnn.cuda.is_available(): no("litnn.cuda.is_available() is False although CuPy sees a GPU")
try: import torch
except ImportError as e: no(f"torch is not installed ({e})")
if not torch.cuda.is_available(): no("torch.cuda.is_available() is False: a CUDA build of torch is needed for the comparisons")
props = cupy.cuda.runtime.getDeviceProperties(0)
print(f"GPU: {props['name'].decode()} ({n} device(s)); CuPy {cupy.__version__}, torch {torch.__version__}, litnn {litnn.__version__}")
PYEOF

failed=()
bench() {
say "4/4 benchmarks: litnn on CuPy vs torch on CUDA (eager, compiled, and compiled as CUDA graphs)"
"$PY" bench/gpu_steps.py --device cuda --compiled 2>&1 | tee "$LOG/bench.txt"
[ "${PIPESTATUS[0]}" = 0 ] || failed+=("bench/gpu_steps.py")
"$PY" bench/gpu_forward_graph.py --device cuda 2>&1 | tee -a "$LOG/bench.txt"
[ "${PIPESTATUS[0]}" = 0 ] || failed+=("bench/gpu_forward_graph.py")
if [ -f bench/gpt_step.py ]; then
    "$PY" bench/gpt_step.py --device cuda --compiled 2>&1 | tee -a "$LOG/bench.txt"
    [ "${PIPESTATUS[0]}" = 0 ] || failed+=("bench/gpt_step.py")
fi
}
if [ "${STEPS[0]}" = bench ]; then bench; fi

if wants tests; then
say "2/4 tests/ (GPU tests included; tests/test_docs.py needs a browser and is left out)"
par=(); if "$PY" -c 'import xdist' 2>/dev/null && [ "$JOBS" -gt 1 ]; then par=(-n "$JOBS"); fi
if "$PY" -c 'import pytest_timeout' 2>/dev/null; then par+=(--timeout 300); fi   # a hung kernel fails its test, not the run
"$PY" -m pytest tests -q -rfEs -p no:randomly ${par[@]+"${par[@]}"} --deselect tests/test_docs.py 2>&1 | tee "$LOG/pytest.txt"
[ "${PIPESTATUS[0]}" = 0 ] || failed+=("tests")
if grep -E "^SKIPPED.*(needs a GPU|no GPU|no CUDA)" "$LOG/pytest.txt" >/dev/null; then
    echo "test_gpu.sh: GPU tests were skipped although a GPU is here:" >&2
    grep -E "^SKIPPED.*(needs a GPU|no GPU|no CUDA)" "$LOG/pytest.txt" >&2
    failed+=("skipped GPU tests")
fi
fi

if wants notebooks; then
say "3/4 notebooks: nbdev_test --flags cuda"
# OpenMPI's mpiexec refuses root unless told (MPICH's ignores these); lent GPU machines often run as root.
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
all_nbs=$(find nbs -name '*.ipynb' -not -path '*/.*' -not -path '*/_*' | sort)
# The notebooks that start process groups all listen on torch's default port (29500): they run one at a time, after the rest.
dist_nbs=$(grep -l 'init_process_group\|mpiexec\|mpirun\|distributed.run' $all_nbs)
run_nb='nbdev_test --flags cuda --path "$1" >"$2/$(echo "$1" | tr / _).txt" 2>&1 || echo "$1"'
nb_failed=$(grep -vxF "$dist_nbs" <<<"$all_nbs" | xargs -P "$JOBS" -I{} sh -c "$run_nb" _ {} "$LOG"
            xargs -P 1 -I{} sh -c "$run_nb" _ {} "$LOG" <<<"$dist_nbs")
if [ -n "$nb_failed" ]; then
    for nb in $nb_failed; do echo "---- $nb"; tail -30 "$LOG/$(echo "$nb" | tr / _).txt"; done
    failed+=("notebooks:" $nb_failed)
else echo "all $(wc -l <<<"$all_nbs") notebooks passed with their cuda cells"; fi
fi

if [ "${STEPS[0]}" != bench ] && wants bench; then bench; fi

say "summary"
if [ -f "$LOG/bench.txt" ]; then grep -E "^[A-Za-z].*(cuda|GPU)|/ torch" "$LOG/bench.txt" || true; fi
if [ ${#failed[@]} -gt 0 ]; then echo "test_gpu.sh: FAILED: ${failed[*]} (logs in $LOG)" >&2; exit 1; fi
echo "test_gpu.sh: all GPU tests, notebooks and benchmarks passed (logs in $LOG)"
