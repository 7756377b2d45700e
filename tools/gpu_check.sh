#!/usr/bin/env bash
# Everything that needs a GPU, in one go (the device machine's run): builds
# with the tests, runs the whole CTest suite (GPU suite, samples, CLI and unit
# tests), then the GPU suite under compute-sanitizer memcheck and racecheck.
# Logs go to $OUT (the device tool's folder) or gpu-check/.
#   bash tools/gpu_check.sh [extra cmake args...]
set -uo pipefail
cd "$(dirname "$0")/.."
LOGS="${OUT:-gpu-check}"
mkdir -p "$LOGS"
BUILD=build-gpu
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u +%F; } | tee "$LOGS/machine.txt"
cmake -S . -B $BUILD -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" > "$LOGS/cmake.log" 2>&1 || { tail -n 40 "$LOGS/cmake.log"; exit 1; }
cmake --build $BUILD -j"$(nproc)" > "$LOGS/build.log" 2>&1 || { grep -B2 -A12 'error' "$LOGS/build.log" | head -n 80; exit 1; }
ctest --test-dir $BUILD -j4 --output-on-failure --timeout 900 > "$LOGS/ctest.log" 2>&1
rc=$?
tail -n 30 "$LOGS/ctest.log"
gpu_tests=$BUILD/tests/cujit_gpu_tests
for tool in memcheck racecheck; do
  timeout "${CUJIT_SANITIZER_SECONDS:-240}" compute-sanitizer --tool $tool --error-exitcode 86 \
    --print-limit 20 "$gpu_tests" > "$LOGS/$tool.log" 2>&1
  s=$?
  echo "compute-sanitizer $tool: exit $s ($([ $s = 0 ] && echo clean || { [ $s = 124 ] && echo 'time limit' || echo FINDINGS; }))"
  grep -E "ERROR SUMMARY|test cases|assertions" "$LOGS/$tool.log" | tail -n 3
  [ $s = 0 ] || [ $s = 124 ] || rc=1
done
exit $rc
