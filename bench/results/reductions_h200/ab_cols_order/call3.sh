#!/usr/bin/env bash
# Call 3 (after call 2): A/B of g = HEAD's columns kernel against cur = the working tree (call 1's tf
# order; the flat variant as a kernel of its own, without the general loop: call 2's profile read 70
# and 124 registers; the partials combined one at a time again, as call 2 measured the unrolled
# combine slower), three interleaved rounds with the read+write stream; the [reduce] GPU tests in
# full, memcheck on them; the elementwise NumPy diff and the [reference] cases on the GPU (last
# session's complex-product, signed-zero and codegen fixes, not yet run on a GPU).
# From the repository root, with .old/ holding HEAD (git archive HEAD | tar -x -C .old):
#   DEPS=$PWD/.devdeps bash bench/results/reductions_h200/ab_cols_order/call3.sh
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
timeout 190 $B/tests/cujit_gpu_tests "[reduce]" > $OUT/tests_reduce.log 2>&1; t "[reduce] exit $?"
grep -E "test cases|assertions" $OUT/tests_reduce.log | tail -2 | tee -a $L; grep -E "FAILED" -A10 $OUT/tests_reduce.log | head -30 >> $L
CUJIT_TEST_REDUCE_MAX=30000 timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/cujit_gpu_tests "[reduce]" > /tmp/san.log 2>&1; t "memcheck [reduce] exit $?"; grep -E "ERROR SUMMARY|test cases" /tmp/san.log | tail -2 | tee -a $L
timeout 100 python3 -u tests/cli/numpy_elementwise_diff.py $B/tools/jitrun 80 20261129 0 > $OUT/diff_gpu.log 2>&1; t "numpy_elementwise_diff 80 cases on GPU 0 exit $? ($(tail -1 $OUT/diff_gpu.log))"
grep FAIL $OUT/diff_gpu.log | head -10 >> $L
left=$(( 585 - $(el) ))
timeout $left $B/tests/cujit_gpu_tests "[reference]" > $OUT/reference.log 2>&1; t "[reference] exit $? ($(grep -E 'test cases|assertions' $OUT/reference.log | tail -2 | tr '\n' ' '))"
grep -a FAILED -A10 $OUT/reference.log | head -40 >> $L
