#!/usr/bin/env bash
# Eighth call (GPU 0 of the pair): whole-array argmax with other chunk counts than the planner's
# (bench_reductions' seventh field forces the rows plan's chunks a row; the kernel is the same),
# float32 at 2^24, 2^26, 2^28 and float16/float64 at 2^26, three interleaved rounds, beside CUB's
# ArgMax and the read-only stream in the same call.
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjc CUDA_VISIBLE_DEVICES=0
S=$(date +%s); L=$OUT/steps.log; t() { echo "[$(( $(date +%s) - S ))s] $*" | tee -a $L; }
B=/tmp/b
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_TESTS=OFF -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build $B -j$(nproc) --target bench_reductions > /tmp/build.log 2>&1 &
nvcc -O3 -std=c++17 -arch=native --extended-lambda -o /tmp/rcub bench/reductions_cub.cu > /tmp/nvcc.log 2>&1 || tail -20 /tmp/nvcc.log
wait; t build ok
C=/tmp/cases; : > $C
for r in 1 2 3; do
  for k in "" 264 528 1056 2112; do echo "f32_2e24_${k:-plan}|argmax|float32|1|16777216|1${k:+|$k}"; done
  for k in "" 1056 2112 3168 8448; do echo "f32_2e26_${k:-plan}|argmax|float32|1|67108864|1${k:+|$k}"; done
  for k in "" 2112 4224 8448; do echo "f32_2e28_${k:-plan}|argmax|float32|1|268435456|1${k:+|$k}"; done
  for k in "" 1056 2112; do echo "f16_2e26_${k:-plan}|argmax|float16|1|67108864|1${k:+|$k}"; done
  for k in "" 1056 2112; do echo "f64_2e26_${k:-plan}|argmax|float64|1|67108864|1${k:+|$k}"; done
done >> $C
timeout 200 $B/bench/bench_reductions < $C > $OUT/chunks.txt 2>&1; t "chunks exit $?"
{ for r in 1 2 3; do for n in 16777216 67108864 268435456; do echo "cub_f32_$n|cub|argmax|float32|1|$n|1"; echo "read_f32_$n|read|argmax|float32|1|$n|1"; done
  for d in float16 float64; do echo "cub_${d}_67108864|cub|argmax|$d|1|67108864|1"; echo "read_${d}_67108864|read|argmax|$d|1|67108864|1"; done; done; } | timeout 100 /tmp/rcub > $OUT/cub.txt 2>&1; t "cub exit $?"
python3 - $OUT/chunks.txt >> $L <<'PY'
import sys, statistics as st, collections
d = collections.defaultdict(list); plan = {}
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) >= 2: d[p[0]].append(float(p[1])); plan[p[0]] = " ".join(p[2:])
for k, v in d.items(): print(f"{k:22s} median {st.median(v)*1000:9.3f} us  min {min(v)*1000:9.3f}  ({plan[k]})")
PY
