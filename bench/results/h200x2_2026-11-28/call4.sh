#!/usr/bin/env bash
# Fourth nvidia-h200-x2 call: the failing case again, its jitrun output now captured, alone and
# after the other [multi_gpu],[split_reduce],[pool] cases.
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjmg
S=$(date +%s); L=$OUT/steps.log; t() { echo "[$(( $(date +%s) - S ))s] $*" | tee -a $L; }
B=$PWD/build-h200x2
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_SAMPLES=OFF -DCUJIT_BUILD_TESTS=ON -DCUJIT_BUILD_BENCH=ON > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build $B -j$(nproc) --target jitrun cujit_gpu_tests > /tmp/build.log 2>&1 || { grep -E 'error' -A5 /tmp/build.log | head -60; exit 1; }
t build ok
timeout 60 $B/tests/cujit_gpu_tests "split reductions: what stays refused*" > $OUT/alone.log 2>&1; t "alone exit $?"
timeout 200 $B/tests/cujit_gpu_tests "[multi_gpu],[split_reduce],[pool]" > $OUT/all.log 2>&1; t "all exit $?"
nvidia-smi >> $OUT/all.log 2>&1
