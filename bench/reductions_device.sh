#!/bin/bash
# One device call for the reduction kernels: build, the GPU tests of the
# reductions (then under compute-sanitizer memcheck and racecheck), and
# bench/reductions.py. Run from the repository root with $OUT set;
# STEPS=test,sanitize,bench picks the steps, RED_* pass through to the bench.
set -u
DEPS=${DEPS:-$PWD/../.devdeps}
STEPS=${STEPS:-test,sanitize,bench}
LOG=$OUT/log.txt
B=${BUILD_DIR:-/tmp/b_reductions}
{
  echo "== $(date -u) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$DEPS -DCUJIT_BUILD_TESTS=ON > $OUT/build.log 2>&1 &&
    cmake --build $B -j16 --target cujit_gpu_tests bench_reductions >> $OUT/build.log 2>&1 || { echo "build failed"; tail -50 $OUT/build.log; exit 1; }
  echo "== built $(date -u +%T)"
  if [[ $STEPS == *test* ]]; then
    CUJIT_TEST_REDUCE_MAX=${TEST_MAX:-} timeout 240 $B/tests/cujit_gpu_tests "${TEST_FILTER:-[reduce]}" 2>&1 | grep -v "^  [0-9]* |" | tail -60
    echo "== tests done $(date -u +%T)"
  fi
  if [[ $STEPS == *sanitize* ]]; then
    for tool in memcheck racecheck; do
      CUJIT_TEST_REDUCE_MAX=140000 timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 \
        $B/tests/cujit_gpu_tests "[reduce]" 2>&1 | grep -v "^  [0-9]* |" | tail -25
      echo "== $tool exit ${PIPESTATUS[0]} $(date -u +%T)"
    done
  fi
  if [[ $STEPS == *bench* ]]; then
    timeout ${BENCH_TIMEOUT:-300} python3 bench/reductions.py $B/bench/bench_reductions $OUT 2>&1 | tail -40
    echo "== bench done $(date -u +%T)"
  fi
} > $LOG 2>&1
