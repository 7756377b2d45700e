#!/usr/bin/env bash
# Third nvidia-h200-x2 call: the two jitrun runs that call 2's failing case makes, with their
# output (both exit 4); and how fast this machine writes 4 GB to /tmp from one and two threads.
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjmg3
S=$(date +%s); L=$OUT/steps.log; t() { echo "[$(( $(date +%s) - S ))s] $*" | tee -a $L; }
B=$PWD/build-h200x2
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_SAMPLES=OFF -DCUJIT_BUILD_TESTS=OFF -DCUJIT_BUILD_BENCH=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build $B -j$(nproc) --target jitrun > /tmp/build.log 2>&1 || { grep -E 'error' -A5 /tmp/build.log | head -60; exit 1; }
t build ok
J=$B/tools/jitrun
for d in all 0; do
  echo "== $d nanargmax"; $J --device $d -i 'x=rand((10,4))' 'm = nanargmax(x)'; echo "rc=$?"
  echo "== $d three"; $J --device $d -i 'x=arange(100):int32' 's = sum(x); k = argmax(x); m = max(x, axis=0)'; echo "rc=$?"
  echo "== $d sum"; $J --device $d -i 'x=arange(100):int32' 's = sum(x)'; echo "rc=$?"
  echo "== $d max0"; $J --device $d -i 'x=arange(100):int32' 'm = max(x, axis=0)'; echo "rc=$?"
  echo "== $d rand"; $J --device $d -v -i 'x=rand((10,4))' 'm = x*2'; echo "rc=$?"
done > $OUT/runs.txt 2>&1
t runs done
{ df -h /tmp; mount | grep -E ' /tmp | / ' ; free -g; } > $OUT/disk.txt 2>&1
python3 - >> $OUT/disk.txt 2>&1 <<'PY'
import os, time, threading, numpy as np
buf = np.ones(1 << 30, dtype=np.uint8)  # 1 GiB
def w(path, k, nthreads):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.ftruncate(fd, 4 << 30)
    def part(i):
        for j in range(i, 4, nthreads): os.pwrite(fd, buf, j << 30)
    ts = [threading.Thread(target=part, args=(i,)) for i in range(nthreads)]
    t0 = time.time(); [t.start() for t in ts]; [t.join() for t in ts]; dt = time.time() - t0
    os.close(fd); os.remove(path); return dt
for rep in range(2):
    for n in (1, 2, 4):
        print(f"4 GiB pwrite to /tmp, {n} thread(s): {w('/tmp/wtest', 4, n):.3f} s")
PY
t disk done
