#!/usr/bin/env bash
# Call 2 (2026-11-29, tenth session): bench/reductions.py with every peer after the last
# session's half-chunk rule (d0c1a3b), its tables, plots and log tarred.
#   DEPS=$PWD/.devdeps bash bench/results/reductions_h200/../gpu_check_2026-11-29/call2.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjt
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > $OUT/machine.txt
B=$PWD/build-dev
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log | tee -a $L; exit 1; }
cmake --build $B -j16 --target bench_reductions > /tmp/build.log 2>&1 || { grep error -A5 /tmp/build.log | head -40 | tee -a $L; exit 1; }
t built
mkdir -p $OUT/red
timeout $(( 480 - $(el) )) python3 bench/reductions.py $B/bench/bench_reductions $OUT/red > $OUT/red/bench.log 2>&1; t "reductions.py exit $?"
cd $OUT && tar -czf red.tgz red && rm -rf red
