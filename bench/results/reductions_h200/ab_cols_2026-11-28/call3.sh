#!/usr/bin/env bash
# The plan's eight rows in flight for the columns kernel (src/gpu/reduce_launch.cpp, unguarded steps in
# templates/kernel_reduce_cols.cu) against HEAD's kernel: one build; "old" = .old/templates (HEAD) with
# U clamped to 4 (HEAD's plan for these sums), "new" = this tree; three interleaved rounds beside the
# read+write ceiling. Then the [reduce] GPU tests and compute-sanitizer memcheck and racecheck on the
# new test case of eight rows in flight.
# From the repository root on one GPU: DEPS=$PWD/.devdeps bash bench/results/reductions_h200/ab_cols_2026-11-28/call3.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > $OUT/machine.txt
export CUJIT_CACHE_DIR=/tmp/cjab
cmake -S . -B /tmp/bnew -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -20 /tmp/cmake.log; exit 1; }
(nvcc -O3 -std=c++17 -arch=native --extended-lambda -o /tmp/cub bench/reductions_cub.cu || echo "cub build failed" >> $L) &
cmake --build /tmp/bnew -j16 --target bench_reductions cujit_gpu_tests > /tmp/bnew.log 2>&1 || { grep error -A5 /tmp/bnew.log | head -40; exit 1; }
wait; t built
K=kernel_reduce_cols.cu
for v in old new; do mkdir -p /tmp/tv/$v; cp templates/* /tmp/tv/$v/; done
cp .old/templates/$K /tmp/tv/old/$K
sed -i 's/U = {{UNROLL}}/U = ({{UNROLL}} > 4 ? 4 : {{UNROLL}})/' /tmp/tv/old/$K
grep -c "UNROLL}} > 4" /tmp/tv/old/$K >> $L
python3 - > /tmp/lines.txt <<'PY'
for k in range(2, 25, 2):
    print(f"first:{k}|sum|float32|1|{1<<k}|{1<<(26-k)}")
    if k <= 22: print(f"middle:{k}|sum|float32|4|{1<<k}|{1<<(24-k)}")
for k in (10, 16, 20):
    print(f"f64first:{k}|sum|float64|1|{1<<k}|{1<<(25-k)}")
PY
sed 's/^\([^|]*\)|sum|/ceil:\1|rw|sum|/' /tmp/lines.txt > /tmp/ceil.txt
for r in 1 2 3; do
  for v in old new; do
    CUJIT_TEMPLATE_DIR=/tmp/tv/$v /tmp/bnew/bench/bench_reductions < /tmp/lines.txt 2>>$L | sed "s/^/$v $r /" >> $OUT/ab.txt
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
    if who == "new": plan[cid] = " ".join(f[4:])
ids = []
for (w, c) in t:
    if c not in ids: ids.append(c)
print("| case | ceiling µs | old µs | new µs | new / old speed | old / ceiling | new / ceiling | plan |")
print("|---|---:|---:|---:|---:|---:|---:|---|")
for c in ids:
    ce = st.median(t[("ceil", c)]) * 1e3; o = st.median(t[("old", c)]) * 1e3; n = st.median(t[("new", c)]) * 1e3
    print(f"| {c} | {ce:.1f} | {o:.1f} | {n:.1f} | {o/n:.3f} | {ce/o:.2f} | {ce/n:.2f} | {plan.get(c, '')} |")
PY
cat $OUT/ab.md >> $L
timeout 200 /tmp/bnew/tests/cujit_gpu_tests "[reduce]" > $OUT/tests.log 2>&1; t "[reduce] exit $? ($(tail -2 $OUT/tests.log | tr '\n' ' '))"
grep -a FAILED -A12 $OUT/tests.log | head -40 >> $L
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
TC="columns with eight rows in flight a thread match the reference, with the same bits on any grid"
for tool in memcheck racecheck; do
  timeout 100 $CS --tool $tool --error-exitcode 9 /tmp/bnew/tests/cujit_gpu_tests "$TC" > $OUT/$tool.log 2>&1; t "$tool exit $? ($(tail -3 $OUT/$tool.log | tr '\n' ' '))"
done
