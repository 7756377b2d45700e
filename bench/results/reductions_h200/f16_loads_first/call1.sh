#!/usr/bin/env bash
# Call 1 (2026-11-29): loads before conversions, A/B. old = HEAD before the change (.old/, its own
# build), new = the working tree, new3 = new with the rows kernel bounded to 3 blocks of 256 per SM
# (float16 sum(x*y) takes 96 registers when its loads go first), newc = new with HEAD's columns
# template (float16 sums over axis 0 spill 104 bytes under its bound of 4 blocks when loads go first). Three interleaved rounds beside the
# ceilings of bench/reductions_cub.cu (a read-only stream for whole reductions, read+write for axes);
# bench_layouts old/new on the float16 and bfloat16 x*0.5 + y lines of bench/layouts.py, then
# layouts.py for those two cases with every peer (new); [reduce] in full on new.
# From the repository root, with .old/ holding HEAD (git archive HEAD | tar -x -C .old):
#   DEPS=$PWD/.devdeps bash bench/results/reductions_h200/f16_loads_first/call1.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjab
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > $OUT/machine.txt
B=$PWD/build-dev; O=$PWD/build-old
cfg="-DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF"
cmake -S . -B $B $cfg > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log | tee -a $L; exit 1; }
cmake -S .old -B $O $cfg > /tmp/cmake_old.log 2>&1 || { tail -30 /tmp/cmake_old.log | tee -a $L; exit 1; }
[ -x /tmp/cub ] || (nvcc -O3 -std=c++17 -arch=native --extended-lambda -o /tmp/cub bench/reductions_cub.cu || echo "cub build failed" >> $L) &
(cmake --build $O -j8 --target bench_reductions bench_layouts > /tmp/build_old.log 2>&1 || echo "old build failed" >> $L) &
cmake --build $B -j10 --target bench_reductions bench_layouts jitrun cujit_gpu_tests > /tmp/build.log 2>&1 || { grep error -A5 /tmp/build.log | head -40 | tee -a $L; exit 1; }
wait; t built
rm -rf /tmp/tv; mkdir -p /tmp/tv/new3 /tmp/tv/newc; cp templates/* /tmp/tv/new3/; cp templates/* /tmp/tv/newc/
sed -i 's/__launch_bounds__({{THREADS}})/__launch_bounds__({{THREADS}}, 3)/' /tmp/tv/new3/kernel_reduce_rows.cu
cp .old/templates/kernel_reduce_cols.cu /tmp/tv/newc/
python3 - > /tmp/lines.txt <<'PY'
# ID|OP|DTYPE|OUTER|LEN|INNER: whole reductions are (1, N, 1)
for k in (20, 24, 26, 28):
    for dt in ("float16", "float32"):
        print(f"dot{dt[5:]}:{k}|dot|{dt}|1|{1<<k}|1")
    print(f"sum16:{k}|sum|float16|1|{1<<k}|1")
    print(f"argmax16:{k}|argmax|float16|1|{1<<k}|1")
    print(f"argmax32:{k}|argmax|float32|1|{1<<k}|1")
    print(f"max16:{k}|max|float16|1|{1<<k}|1")
for k in (4, 10, 16, 20, 24):
    print(f"f16first:{k}|sum|float16|1|{1<<k}|{1<<(26-k)}")
    print(f"f16last:{k}|sum|float16|{1<<k}|{1<<(26-k)}|1")
for k in (14, 18, 20, 22):
    print(f"last:{k}|sum|float32|{1<<k}|{1<<(26-k)}|1")
print("first:20|sum|float32|1|1048576|64")
print("max16last:20|max|float16|1048576|64|1")
print("argmax16last:20|argmax|float16|1048576|64|1")
PY
python3 - /tmp/lines.txt > /tmp/ceil.txt <<'PY'
import sys
for ln in open(sys.argv[1]):
    f = ln.strip().split("|")
    whole = f[3] == "1" and f[5] == "1"
    print("|".join([f"ceil:{f[0]}", "read" if whole else "rw"] + f[1:]))
PY
for r in 1 2 3; do
  timeout 120 $O/bench/bench_reductions < /tmp/lines.txt 2>>$L | sed "s/^/old $r /" >> $OUT/ab.txt
  timeout 120 $B/bench/bench_reductions < /tmp/lines.txt 2>>$L | sed "s/^/new $r /" >> $OUT/ab.txt
  for v in new3 newc; do
    CUJIT_TEMPLATE_DIR=/tmp/tv/$v timeout 120 $B/bench/bench_reductions < /tmp/lines.txt 2>>$L | sed "s/^/$v $r /" >> $OUT/ab.txt
  done
  timeout 60 /tmp/cub < /tmp/ceil.txt | sed "s/^/ceil $r /" >> $OUT/ab.txt
  t "round $r"
done
python3 bench/results/reductions_h200/f16_loads_first/ab_table.py $OUT/ab.txt old new new3 newc > $OUT/ab.md; cat $OUT/ab.md >> $L
# Elementwise: the float16 / bfloat16 x*0.5 + y lines, old and new interleaved.
LAYOUTS_PRINT_LINES=1 python3 bench/layouts.py $B/bench/bench_layouts /tmp half_f16,half_bf16 > /tmp/ew_lines.txt 2>>$L
for r in 1 2 3; do
  timeout 60 $O/bench/bench_layouts < /tmp/ew_lines.txt 2>>$L | sed "s/^/old $r /" >> $OUT/ew_ab.txt
  timeout 60 $B/bench/bench_layouts < /tmp/ew_lines.txt 2>>$L | sed "s/^/new $r /" >> $OUT/ew_ab.txt
done
python3 bench/results/reductions_h200/f16_loads_first/ab_table.py $OUT/ew_ab.txt old new > $OUT/ew_ab.md; cat $OUT/ew_ab.md >> $L; t "elementwise A/B"
mkdir -p $OUT/layouts; timeout 150 python3 bench/layouts.py $B/bench/bench_layouts $OUT/layouts half_f16,half_bf16 > $OUT/layouts/run_log.txt 2>&1; t "layouts.py exit $?"
left=$(( 585 - $(el) ))
timeout $left $B/tests/cujit_gpu_tests "[reduce]" > $OUT/tests_reduce.log 2>&1; t "[reduce] exit $? ($(grep -E 'test cases|assertions' $OUT/tests_reduce.log | tail -2 | tr '\n' ' '))"
grep -E "FAILED" -A10 $OUT/tests_reduce.log | head -30 >> $L
