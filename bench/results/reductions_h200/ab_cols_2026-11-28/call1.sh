#!/usr/bin/env bash
# A/B of the columns kernel's unguarded whole steps (templates/kernel_reduce_cols.cu): the tree before
# (.old/, `git archive` of the commit before) against the working tree, float32 sums over axis 0 and the
# middle axis (bench/reductions.py's cases), three interleaved rounds, with the read+write ceiling of
# bench/reductions_cub.cu in the same run; then the [reduce] GPU tests of the new tree.
# From the repository root on one GPU: DEPS=$PWD/.devdeps bash bench/results/reductions_h200/ab_cols_unguarded_call.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > $OUT/machine.txt
export CUJIT_CACHE_DIR=/tmp/cjab
conf() { cmake -S $1 -B $2 -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF > $2.cmake.log 2>&1; }
conf . /tmp/bnew & conf .old /tmp/bold & wait
cmake --build /tmp/bnew -j16 --target bench_reductions > /tmp/bnew.log 2>&1 || { grep error -A5 /tmp/bnew.log | head -40; exit 1; }
cmake --build /tmp/bold -j16 --target bench_reductions > /tmp/bold.log 2>&1 || { grep error -A5 /tmp/bold.log | head -40; exit 1; }
t benches built
(cmake --build /tmp/bnew -j12 --target cujit_gpu_tests > /tmp/bt.log 2>&1; echo $? > /tmp/bt.rc) &
nvcc -O3 -std=c++17 -arch=native --extended-lambda -o /tmp/cub bench/reductions_cub.cu || t "cub build failed"
python3 - > /tmp/lines.txt <<'PY'
for k in range(0, 27, 2):
    print(f"first:{k}|sum|float32|1|{1<<k}|{1<<(26-k)}")
    if k <= 24: print(f"middle:{k}|sum|float32|4|{1<<k}|{1<<(24-k)}")
for lg in (20, 24, 28):  # controls: whole sums (the rows kernel, unchanged)
    print(f"full:{lg}|sum|float32|1|{1<<lg}|1")
PY
sed 's/^\([^|]*\)|sum|/ceil:\1|rw|sum|/' /tmp/lines.txt | grep -v '^ceil:full' > /tmp/ceil.txt
for r in 1 2 3; do
  /tmp/bold/bench/bench_reductions < /tmp/lines.txt | sed "s/^/old $r /" >> $OUT/ab.txt
  /tmp/bnew/bench/bench_reductions < /tmp/lines.txt | sed "s/^/new $r /" >> $OUT/ab.txt
  /tmp/cub < /tmp/ceil.txt | sed "s/^/ceil $r /" >> $OUT/ab.txt
done
t "bench done"
python3 - $OUT/ab.txt > $OUT/ab.md <<'PY'
import sys, statistics as st, collections
t = collections.defaultdict(list); plan = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 4: continue
    who, _, cid, ms = f[0], f[1], f[2], f[3]
    cid = cid.replace("ceil:", "")
    try: t[(who, cid)].append(float(ms))
    except ValueError: continue
    if who == "new": plan[cid] = " ".join(f[4:])
ids = []
for (w, c) in t:
    if c not in ids: ids.append(c)
def nbytes(c):
    g, k = c.split(":"); k = int(k)
    if g == "first": return 4 * (2**26 + 2**(26 - k))
    if g == "middle": return 4 * (2**26 + 4 * 2**(24 - k))
    return 4 * 2**k
print("| case | old µs | new µs | new/old speed | ceiling µs | old / ceiling | new / ceiling | plan (new) |")
print("|---|---:|---:|---:|---:|---:|---:|---|")
for c in ids:
    o = st.median(t[("old", c)]) * 1e3; n = st.median(t[("new", c)]) * 1e3
    ce = st.median(t[("ceil", c)]) * 1e3 if ("ceil", c) in t else float("nan")
    print(f"| {c} | {o:.1f} | {n:.1f} | {o/n:.3f} | {ce:.1f} | {ce/o:.2f} | {ce/n:.2f} | {plan.get(c, '')} |")
PY
cat $OUT/ab.md >> $L
wait; t "tests built rc $(cat /tmp/bt.rc)"
timeout 170 /tmp/bnew/tests/cujit_gpu_tests "[reduce]" > $OUT/tests.log 2>&1; t "[reduce] exit $? ($(tail -2 $OUT/tests.log | tr '\n' ' '))"
grep -a FAILED -A12 $OUT/tests.log | head -40 >> $L
