#!/usr/bin/env bash
# The scale-out measurement of docs/PERFORMANCE.md ("Several processes and shards"):
# bench/grpc_bench.py at 64 games, closed loop, for 1 and 2 server processes and 1 and 2 shards
# on PostgreSQL and SQLite, each run with its own no-op and raw-insert baselines; the whole
# matrix is repeated ROUNDS times, interleaved, because the shared machine is noisy.
# Usage: bench/scale_matrix.sh OUTDIR [ROUNDS]
set -euo pipefail
out=${1:?output directory}
rounds=${2:-2}
mkdir -p "$out"
cd "$(dirname "$0")/.."
for round in $(seq 1 "$rounds"); do
  for store in postgres sqlite; do
    for config in "1 1" "2 1" "1 2" "2 2"; do
      set -- $config
      log="$out/r${round}_${store}_p$1_s$2.txt"
      echo "== round $round $store servers=$1 shards=$2 load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$log"
      .venv/bin/python bench/grpc_bench.py --store "$store" --servers "$1" --shards "$2" \
        --concurrency 64 --open-games 64 --open-fractions --no-view-pattern \
        --seconds 5 --warmup 1 --prime-seconds 4 --no-projections --workers 8 >>"$log" 2>&1 \
        || echo "FAILED rc=$?" >>"$log"
    done
  done
  for shards in 1 2 4; do
    log="$out/r${round}_store_s${shards}.txt"
    echo "== round $round store_bench shards=$shards load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$log"
    PREF_SHARDS=$shards .venv/bin/python bench/store_bench.py --concurrency 8 64 \
      --variants app --raw raw raw+lock+notify --seconds 4 --min-events 2000 >>"$log" 2>&1 \
      || echo "FAILED rc=$?" >>"$log"
  done
done
