#!/usr/bin/env bash
# One sitting of CI timings: `.ci/run` from a fresh clone of each commit named, one after the other,
# on this machine as it is (pause the generator around it: python -m tools.datagen paused DIR -- ...).
#
#   tools/ci_sitting.sh OUT_FOLDER COMMIT [COMMIT ...]
#
# Each clone sits beside this checkout (the tests read ../shared), is removed afterwards, and leaves
# OUT_FOLDER/COMMIT.log (the whole output, `pytest --durations=30` included); OUT_FOLDER/sitting.tsv
# gets a row per commit: commit, seconds of `.ci/run`, its exit status, pytest's summary line.
set -uo pipefail
if [ "$#" -lt 2 ]; then
    echo "usage: tools/ci_sitting.sh OUT_FOLDER COMMIT [COMMIT ...]" >&2
    exit 2
fi
repo="$(cd "$(dirname "$0")/.." && pwd)"
out="$(mkdir -p "$1" && cd "$1" && pwd)"
shift
for commit in "$@"; do
    clone="$(dirname "$repo")/ci-sitting-$commit"
    rm -rf "$clone"
    git clone -q "$repo" "$clone" && git -C "$clone" checkout -q "$commit" || exit 1
    start=$SECONDS
    (cd "$clone" && CI=true PYTEST_ADDOPTS="--durations=30 -p no:cacheprovider" bash .ci/run) \
        > "$out/$commit.log" 2>&1
    status=$?
    seconds=$((SECONDS - start))
    summary=$(grep -E "^=+ .*(passed|failed).* in " "$out/$commit.log" | tail -1)
    printf '%s\t%s\t%s\t%s\n' "$commit" "$seconds" "$status" "$summary" | tee -a "$out/sitting.tsv"
    rm -rf "$clone"
done
