#!/usr/bin/env bash
# Second nvidia-h200-x2 call: call 1's [multi_gpu],[split_reduce],[pool] run failed one case (its
# log did not come back), so again with the failures kept; jitrun -v's timeline for --device 0 and all.
# Builds into build-h200x2/ (ignored) so that a warm next call reuses it.
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjmg
S=$(date +%s); L=$OUT/steps.log; t() { echo "[$(( $(date +%s) - S ))s] $*" | tee -a $L; }
B=$PWD/build-h200x2
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build $B -j$(nproc) --target jitrun cujit_gpu_tests > /tmp/build.log 2>&1 || { grep -E 'error' -A5 /tmp/build.log | head -60; exit 1; }
t build ok
timeout 200 $B/tests/cujit_gpu_tests "[multi_gpu],[split_reduce],[pool]" -r console -d yes > /tmp/t.log 2>&1; t "tests exit $?"
grep -E "^[0-9.]+ s: " /tmp/t.log | sort -rn | head -5 >> $L
awk '/FAILED:|failed:/{p=1} p' /tmp/t.log | head -120 > $OUT/failures.log
grep -B30 -m1 "FAILED" /tmp/t.log | head -60 >> $OUT/failures.log
tail -4 /tmp/t.log >> $L
J=$B/tools/jitrun
IN=(-i 'x=rand((32768,32768)):float32' -i 'y=rand((32768,32768)):float32')
for d in 0 all; do $J --device $d "${IN[@]}" 'out = x*y + 5' > /dev/null 2>&1; done
for d in 0 all 0 all; do echo "== --device $d -v"; /usr/bin/time -f "wall %e s" $J --device $d -v "${IN[@]}" 'out = x*y + 5' 2>&1; done > $OUT/verbose.txt
t done
