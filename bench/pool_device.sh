#!/bin/bash
# The memory pool on a GPU in one go, from the repository root: a Release build of the GPU tests and
# bench_pool_alloc in /tmp/bpool, the pool's GPU tests with the pool on and with CUJIT_POOL=0, the
# bench (bench/results/pool_h100.md), then more GPU tests while time is left. Logs go to $OUT
# (default: ./pool_out). CMAKE_PREFIX_PATH reaches headers the machine lacks (the lent GPUs: ../.devdeps).
set -u
OUT=${OUT:-$PWD/pool_out}
mkdir -p "$OUT"
S=$(date +%s)
el() { echo $(( $(date +%s) - S )); }
t() { echo "[$(el)s] $*" >> "$OUT/steps.log"; }
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$OUT/machine.txt" 2>&1
date -u >> "$OUT/machine.txt"
rm -rf /tmp/bpool
t configure
cmake -S . -B /tmp/bpool -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="${CMAKE_PREFIX_PATH:-$PWD/../.devdeps}" \
  -DCUJIT_BUILD_TESTS=ON -DCUJIT_BUILD_SAMPLES=OFF > "$OUT/build.log" 2>&1 || { t cmake failed; exit 1; }
t build
cmake --build /tmp/bpool -j16 --target cujit_gpu_tests bench_pool_alloc >> "$OUT/build.log" 2>&1 || { t build failed; exit 1; }
export CUJIT_CACHE_DIR=/tmp/cujit_pool_cache
SPEC='[pool],[oom],device memory exhausted through the Array API*'
t tests pool on
timeout 90 /tmp/bpool/tests/cujit_gpu_tests "$SPEC" > "$OUT/tests.log" 2>&1; echo "rc=$?" >> "$OUT/tests.log"
t bench
(cd /tmp/bpool/bench && timeout 90 ./bench_pool_alloc --calls 10000 --runs 7) > "$OUT/pool_bench.md" 2>&1
t tests pool off
CUJIT_POOL=0 timeout 60 /tmp/bpool/tests/cujit_gpu_tests "$SPEC" > "$OUT/tests_pool_off.log" 2>&1; echo "rc=$?" >> "$OUT/tests_pool_off.log"
left=$(( ${LIMIT_S:-290} - $(el) ))
t more tests, $left s left
if [ "$left" -gt 20 ]; then
  timeout "$left" /tmp/bpool/tests/cujit_gpu_tests \
    "[elementwise],[inplace],[multi_gpu],[dlpack],[array],[evaluate],[reduce],[generate],[cache],[rows]" \
    > "$OUT/tests_more.log" 2>&1; echo "rc=$?" >> "$OUT/tests_more.log"
fi
t done
