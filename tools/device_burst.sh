#!/usr/bin/env bash
# A burst of NNUE data generation on a bigger machine (a lent 16-core one, or any Linux box):
# builds the core, plays games with every core for SECONDS with a new seed, and leaves one shard
# of whole games (tools/game_records.py) under $OUT, small enough to bring home (under 16 MiB a
# file; the burst is split when it is larger).
#
#   bash tools/device_burst.sh [--no-build] [SECONDS] [SEED]   # defaults: 540 s, the clock's seconds
#
# --no-build plays with the core as it is installed (pip install -e ., say) instead of building it
# in place first.
#
# python-chess is the one package the generator needs beyond Cython: where it is missing, wheels
# in .whl/ are installed first (python3 -m pip download --no-deps -d .whl chess).  Games are
# played with the built-in net, at the settings of docs/nnue.md's generation command, and adjudicated
# with the Syzygy tables where shared/data/syzygy (or ../shared/data/syzygy) is there.
set -euo pipefail
cd "$(dirname "$0")/.."
build=1
if [ "${1:-}" = "--no-build" ]; then
    build=0
    shift
fi
seconds=${1:-540}
seed=${2:-$(date +%s)}
out=${OUT:-runs/burst}
cores=$(nproc)
mkdir -p "$out"

if ! python3 -c "import chess" 2>/dev/null; then
    python3 -m pip install -q --no-index --no-deps --target /tmp/kestrel-site .whl/*.whl
    export PYTHONPATH=/tmp/kestrel-site${PYTHONPATH:+:$PYTHONPATH}
fi
if [ "$build" = 1 ]; then
    started=$(date +%s)
    # Built for the CPU that plays (-march=native): the same search and games, about 18% faster
    # where AVX2 is there (README, "Development"); --force, since a checkout may hold a portable build.
    KESTREL_NATIVE=1 python3 setup.py build_ext --inplace --force -j "$cores" > "$out/build.log" 2>&1 \
        || { tail -30 "$out/build.log"; exit 1; }
    echo "burst: built the core in $(( $(date +%s) - started )) s on $cores cores"
fi

books=../shared/data/openings/2moves_v1.epd
[ -f "$books" ] || books=shared/data/openings/2moves_v1.epd
input_args=()
[ -f "$books" ] && input_args=(--book "$books")
# The Syzygy tables (4.4 MiB) travel in shared/ too: games then end at the tables, as at home.
tables=../shared/data/syzygy
[ -d "$tables" ] || tables=shared/data/syzygy
[ -d "$tables" ] && input_args+=(--syzygy "$tables")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# SIGTERM at the deadline: the generator writes what it holds, kills its workers and exits 130.
# Should it hang, SIGKILL 60 s later (137): the games written are kept, a partial last one cut.
status=0
timeout -k 60 -s TERM "$seconds" python3 -m tools.datagen generate --out "$work/games" --positions 1000000000 \
    --workers "$cores" --soft-nodes 2000 --hard-nodes 20000 "${input_args[@]}" --random-plies 6 \
    --seed "$seed" --progress-every 60 || status=$?
case "$status" in
    0|124|130) ;;
    137) echo "burst: the generator did not stop on SIGTERM and was killed; keeping its games" >&2 ;;
    *) echo "burst: the generator failed with status $status" >&2; exit "$status" ;;
esac
shopt -s nullglob
shards=("$work"/games/*.kgame)
if [ "${#shards[@]}" -eq 0 ]; then
    echo "burst: the generator wrote no game file in $seconds s; nothing to return" >&2
    exit 1
fi
python3 -c 'import sys; from tools.game_records import cut_partial_game; [cut_partial_game(p) for p in sys.argv[1:]]' \
    "${shards[@]}"
cat "${shards[@]}" > "$work/burst.kgame"
python3 -m tools.datagen stats "$work/burst.kgame"
size=$(stat -c %s "$work/burst.kgame")
if [ "$size" -le $((15 * 1024 * 1024)) ]; then
    mv "$work/burst.kgame" "$out/burst-$seed.kgame"
else
    # Byte pieces, joined again with cat before use (whole games only once joined).
    split -b 15M -d "$work/burst.kgame" "$out/burst-$seed.kgame.part"
fi
ls -l "$out"
