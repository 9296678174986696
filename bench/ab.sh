#!/usr/bin/env bash
# A/B a change: run one benchmark alternately with litnn from REV (a temporary git worktree) and from the
# working tree, N times each, and print the ratio lines side by side. Timings on these machines drift by up to
# 25% within minutes; alternating runs compare the two versions under the same conditions.
#   bash bench/ab.sh [REV=HEAD] [BENCH=mlp_step.py] [N=4] [PATTERN='litnn / '] [OPTIONS]
# OPTIONS go to the benchmark, both sides (e.g. '--compiled': the litnn row is the compiled step).
# Run it from the repository root, in the dev environment (see README.md).
set -euo pipefail
rev=${1:-HEAD}; bench=${2:-mlp_step.py}; n=${3:-4}; pattern=${4:-'litnn / '}; opts=${5:-}
root=$(git rev-parse --show-toplevel); tree=$(mktemp -d)
git -C "$root" worktree add -q --detach "$tree" "$rev"
trap 'git -C "$root" worktree remove --force "$tree"' EXIT
run() { (cd "$1/bench" && PYTHONPATH="$1" OMP_NUM_THREADS=1 python "$bench" $opts | grep -- "$pattern" | tr -s ' ' | paste -sd ';'); }
for _ in $(seq "$n"); do echo "A ($rev): $(run "$tree")   |   B (working tree): $(run "$root")"; done
