#!/usr/bin/env bash
# Call 2 (after call 1): A/B of g = HEAD's columns kernel against cur = the working tree (call 1's tf
# order and flat variant, plus the last block's partials loaded four splits at a time), through
# CUJIT_TEMPLATE_DIR, three interleaved rounds with the read+write stream; Nsight Compute of the flat
# copy (float32 and float64) and of axis 0 of (2^18, 256) and (2^20, 64) with cur; the [reduce] GPU
# tests and compute-sanitizer memcheck/racecheck with the working tree's templates.
# From the repository root, with .old/ holding HEAD (git archive HEAD | tar -x -C .old):
#   DEPS=$PWD/.devdeps bash bench/results/reductions_h200/ab_cols_order/call2.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjab2
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > $OUT/machine.txt
B=/tmp/b
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
[ -x /tmp/cub ] || (nvcc -O3 -std=c++17 -arch=native --extended-lambda -o /tmp/cub bench/reductions_cub.cu || echo "cub build failed" >> $L) &
cmake --build $B -j16 --target bench_reductions jitrun cujit_gpu_tests > /tmp/build.log 2>&1 || { grep error -A5 /tmp/build.log | head -40; exit 1; }
wait; t built
K=kernel_reduce_cols.cu
rm -rf /tmp/tv; for v in g cur; do mkdir -p /tmp/tv/$v; cp templates/* /tmp/tv/$v/; done
cp .old/templates/$K /tmp/tv/g/$K
python3 - > /tmp/lines.txt <<'PY'
for k in range(0, 25, 2):
    print(f"first:{k}|sum|float32|1|{1<<k}|{1<<(26-k)}")
    if k <= 22: print(f"middle:{k}|sum|float32|4|{1<<k}|{1<<(24-k)}")
print("last:26x1|sum|float32|67108864|1|1")
print("f64first:20|sum|float64|1|1048576|32")
print("f64middle:4x1|sum|float64|4|1|16777216")
PY
sed 's/^\([^|]*\)|sum|/ceil:\1|rw|sum|/' /tmp/lines.txt > /tmp/ceil.txt
printf 'argmax:24x1|argmax|float32|16777216|1|1\nmax16:26x1|max|float16|67108864|1|1\nargmax:first20|argmax|float32|1|1048576|64\n' >> /tmp/lines.txt
for r in 1 2 3; do
  for v in g cur; do
    CUJIT_TEMPLATE_DIR=/tmp/tv/$v $B/bench/bench_reductions < /tmp/lines.txt 2>>$L | sed "s/^/$v $r /" >> $OUT/ab.txt
  done
  /tmp/cub < /tmp/ceil.txt | sed "s/^/ceil $r /" >> $OUT/ab.txt
done
t "bench done"
python3 - $OUT/ab.txt > $OUT/ab.md <<'PY'
import sys, statistics as st, collections
t = collections.defaultdict(list); plan = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 4: continue
    who, cid = f[0], f[2].replace("ceil:", "")
    try: t[(who, cid)].append(float(f[3]))
    except ValueError: continue
    if who == "cur": plan[cid] = " ".join(f[4:])
ids = []
for (w, c) in t:
    if c not in ids and w != "ceil": ids.append(c)
vs = ["g", "cur"]
print("| case | ceiling µs | " + " | ".join(f"{v} µs" for v in vs) + " | " + " | ".join(f"{v} / ceiling" for v in vs) + " | cur / g | plan (cur) |")
print("|---|---:|" + "---:|" * (2 * len(vs) + 1) + "---|")
for c in ids:
    ce = st.median(t[("ceil", c)]) * 1e3 if ("ceil", c) in t else float("nan")
    ms = [st.median(t[(v, c)]) * 1e3 if (v, c) in t else float("nan") for v in vs]
    print(f"| {c} | {ce:.1f} | " + " | ".join(f"{m:.1f}" for m in ms) + " | " + " | ".join(f"{ce/m:.2f}" for m in ms) + f" | {ms[0]/ms[1]:.3f} | {plan.get(c, '')} |")
PY
cat $OUT/ab.md >> $L
S1="--section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis"
N=$OUT/ncu.txt
echo "# Nsight Compute, H200, $(date -u +%F): one launch each after 3 (ncu -k regex:cj_ --launch-skip 3 --launch-count 1 $S1), Release build of the working tree" > $N
prof() { echo "== $1" >> $N; echo "$1" | timeout 60 ncu -k regex:cj_ --launch-skip 3 --launch-count 1 $S1 $B/bench/bench_reductions >> $N 2>&1; t "ncu $1 exit $?"; }
prof "flat32|sum|float32|1|1|67108864"
prof "flat64|sum|float64|4|1|16777216"
prof "first18|sum|float32|1|262144|256"
prof "first20|sum|float32|1|1048576|64"
timeout 170 $B/tests/cujit_gpu_tests "[reduce]" > $OUT/tests_reduce.log 2>&1; t "[reduce] exit $?"
grep -E "test cases|assertions" $OUT/tests_reduce.log | tail -2 | tee -a $L; grep -E "FAILED" -A10 $OUT/tests_reduce.log | head -30 >> $L
left=$(( 580 - $(el) ))
if [ $left -gt 40 ]; then
  CUJIT_TEST_REDUCE_MAX=30000 timeout $(( left / 2 )) compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/cujit_gpu_tests "[reduce]" > /tmp/san.log 2>&1; t "memcheck [reduce] exit $?"; grep -E "ERROR SUMMARY|test cases" /tmp/san.log | tail -2 | tee -a $L
  CUJIT_TEST_REDUCE_MAX=30000 timeout $(( left / 2 - 5 )) compute-sanitizer --tool racecheck --error-exitcode 9 $B/tests/cujit_gpu_tests "[reduce]" > /tmp/san2.log 2>&1; t "racecheck [reduce] exit $?"; grep -E "RACECHECK SUMMARY|test cases" /tmp/san2.log | tail -2 | tee -a $L
fi
