#!/usr/bin/env bash
# Every test litnn has, in order, stopping at the first failure:
#   1. drift: notebooks, litnn/ and README.md agree (export + clean + make_readme change nothing)
#   2. every notebook, as nbdev_test runs it (+ `#| cuda` cells when a GPU is there)
#   3. doctests in litnn/
#   4. tests/, two processes at a time (GPU tests skip themselves without a GPU)
# Uses the tools of the active environment: activate the venv first (see README.md).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

for tool in python nbdev_export nbdev_clean nbdev_test; do
    command -v "$tool" >/dev/null || { echo "test_all.sh: '$tool' not found: activate the venv with litnn's dev tools first (see README.md)" >&2; exit 1; }
done

# tests/test_docs.py opens the docs site in a real headless browser: Debian's chromium and chromedriver.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "test_all.sh: installing chromium and chromium-driver (for tests/test_docs.py)"
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -qq chromium chromium-driver >/dev/null 2>&1 ||   # package lists may be missing: update once
            { apt-get update -qq && apt-get install -y -qq chromium chromium-driver >/dev/null; }
    else
        echo "test_all.sh: tests/test_docs.py needs chromium and chromedriver: apt-get install chromium chromium-driver (as root)" >&2; exit 1
    fi
fi

T0=$SECONDS; STEP_T0=$SECONDS; TIMES=()
step() {  # step "title": close the previous step's clock, print a header
    if [ -n "${STEP:-}" ]; then TIMES+=("$(printf '%5ds  %s' $((SECONDS-STEP_T0)) "$STEP")"); fi
    STEP=$1; STEP_T0=$SECONDS
    printf '\n==== %s ====\n' "$STEP"
}
timings() {  # on any exit, passed or failed: how long each step took
    local rc=$?
    [ -n "${STEP:-}" ] || exit $rc
    TIMES+=("$(printf '%5ds  %s' $((SECONDS-STEP_T0)) "$STEP")")
    printf '\n==== timings ====\n'; printf '%s\n' "${TIMES[@]}"; printf '%5ds  total\n' $((SECONDS-T0))
    if [ "$rc" = 0 ]; then echo "test_all.sh: all tests passed"; else echo "test_all.sh: FAILED in step '$STEP' (exit $rc)" >&2; fi
    exit $rc
}
trap timings EXIT

# Everything the generators may touch: tracked and untracked (not ignored) files.
snapshot() { git ls-files -z -co --exclude-standard -- litnn nbs README.md | sort -z | xargs -0 -r sha1sum; }

step "1/4 drift: nbdev_export, nbdev_clean, tools/make_readme.py change nothing"
git_clean_before=$(git status --porcelain -- litnn nbs README.md)
before=$(snapshot)
nbdev_export
nbdev_clean
python tools/make_readme.py
after=$(snapshot)
if [ "$before" != "$after" ]; then
    echo "DRIFT: these files changed when regenerated from the notebooks:" >&2
    { diff <(echo "$before") <(echo "$after") || true; } | sed -n 's/^[<>] [0-9a-f]*  /  /p' | sort -u >&2
    echo "Edit the notebook (not litnn/*.py, not README.md), run nbdev_export, nbdev_clean and" >&2
    echo "python tools/make_readme.py, and commit the notebook and the generated files together." >&2
    exit 1
fi
# In a clean checkout (CI's fresh clone) the generated files must also equal what is committed.
if [ -z "$git_clean_before" ] && [ -n "$(git status --porcelain -- litnn nbs README.md)" ]; then
    echo "DRIFT: regenerating left these files different from the commit:" >&2
    git status --porcelain -- litnn nbs README.md >&2
    echo "Edit the notebook, export, commit both." >&2
    exit 1
fi
echo "no drift"

step "2/4 notebooks: nbdev's test_nb, one process per notebook"
flags=""
if [ "$(python -c 'import litnn.cuda as c; print(c.is_available())')" = True ]; then
    flags=cuda; echo "GPU found: also running the cells marked #| cuda"
fi
# One process per notebook: a notebook re-patches litnn's classes with its own cells' definitions, so notebooks
# sharing a process (nbdev_test's worker pool) would see each other's classes. tools/test_notebooks.py forks each
# notebook's process from one that has imported litnn and nbdev once (`nbdev_test --path NB` per notebook spent
# most of this step starting Python); it prints the slowest notebooks and each failing notebook's error.
python tools/test_notebooks.py --flags "$flags"

step "3/4 doctests: pytest --doctest-modules litnn"
rc=0; python -m pytest --doctest-modules litnn -q || rc=$?
if [ "$rc" = 5 ]; then echo "(no doctests collected yet)"
elif [ "$rc" != 0 ]; then exit "$rc"; fi

step "4/4 tests/: pytest tests"
# in two worker processes (pytest-xdist), as the notebooks above run two at a time: each test stands alone (its own
# fixtures, fresh interpreters where a process-wide switch matters); each file's tests run on one worker, so a module's
# fixtures are made once (tests/test_docs.py builds one docs site, not one per worker); the slowest are listed
workers=$(python -c 'import os; print(min(2, len(os.sched_getaffinity(0))))')
python -m pytest tests -q -n "$workers" --dist loadfile --durations=20
