#!/usr/bin/env bash
# Sixth nvidia-h200-x2 call (the fifth ran call 5's commands inline: the pool fix's tests): .npy
# outputs written straight from GPU memory (src/io/npy_device.cpp). A Release build; the GPU tests
# [npy],[multi_gpu],[split_reduce],[pool] and the `gpu` entry's jitrun/runtime cases on both GPUs;
# jitrun end to end on 2^30 float32 as bench/multi_gpu_run.sh times it (3 processes each), with -v
# timelines of the .npy runs.
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjmg
S=$(date +%s); L=$OUT/steps.log; t() { echo "[$(( $(date +%s) - S ))s] $*" | tee -a $L; }
B=$PWD/build-h200x2
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_SAMPLES=OFF -DCUJIT_BUILD_TESTS=ON -DCUJIT_BUILD_BENCH=ON > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build $B -j$(nproc) --target jitrun cujit_gpu_tests > /tmp/build.log 2>&1 || { grep -E 'error' -A5 /tmp/build.log | head -60; exit 1; }
t build ok
timeout 150 $B/tests/cujit_gpu_tests "[npy],[multi_gpu],[split_reduce],[pool]" > /tmp/t1.log 2>&1; t "tests exit $? ($(tail -3 /tmp/t1.log | tr '\n' ' '))"
grep -B3 -A20 FAILED /tmp/t1.log | head -60 >> $L
J=$B/tools/jitrun
IN=(-i 'x=rand((32768,32768)):float32' -i 'y=rand((32768,32768)):float32')
P='out = x*y + 5'
for d in 0 all; do $J --device $d "${IN[@]}" "$P" > /dev/null 2>&1; done
e2e() { local label=$1 d=$2; shift 2; local a=$(date +%s.%N); $J --device $d "${IN[@]}" "$@" "$P" > /tmp/e.txt 2>&1 || echo "FAIL $label: $(head -3 /tmp/e.txt)" >> $L; local b=$(date +%s.%N); echo "$label $(awk "BEGIN{print $b - $a}")" >> $OUT/e2e.txt; rm -f /tmp/e2e_out.npy; }
for r in 1 2 3; do
  e2e "summary device=0" 0; e2e "summary device=all" all
  e2e "npy device=0" 0 -o out=/tmp/e2e_out.npy; e2e "npy device=all" all -o out=/tmp/e2e_out.npy
done
t e2e done
for d in 0 all; do echo "== --device $d -v -o"; /usr/bin/time -f "wall %e s" $J --device $d -v "${IN[@]}" -o out=/tmp/e2e_out.npy "$P" 2>&1; python3 -c "
import numpy as np; o=np.load('/tmp/e2e_out.npy', mmap_mode='r'); print('npy', o.shape, o.dtype, float(o[0,0]), float(o[-1,-1]), float(o[16384,5]))"; rm -f /tmp/e2e_out.npy; done > $OUT/verbose.txt 2>&1
python3 - $OUT/e2e.txt >> $L <<'PY'
import sys, statistics as st, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    *k, v = line.split(); d[" ".join(k)].append(float(v))
print("| run | processes | median s | min s | max s |\n|---|---:|---:|---:|---:|")
for k, v in d.items(): print(f"| {k} | {len(v)} | {st.median(v):.3f} | {min(v):.3f} | {max(v):.3f} |")
PY
left=$(( 560 - ($(date +%s) - S) ))
[ $left -gt 30 ] && { timeout $left $B/tests/cujit_gpu_tests "~[.]~[multi]~[huge_index]~[huge_rows]~[generate_4gb]~[manifest]~[memory]~[reference]~[reduction-gpu]~[reduce]~[inplace]" > /tmp/t2.log 2>&1; t "gpu entry exit $? ($(tail -3 /tmp/t2.log | tr '\n' ' '))"; grep -B3 -A20 FAILED /tmp/t2.log | head -40 >> $L; }
