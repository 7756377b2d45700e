#!/usr/bin/env bash
# Variants of the columns kernel through CUJIT_TEMPLATE_DIR (one build, each variant's templates compiled by
# NVRTC at run time): g = HEAD's guarded steps (.old/templates), u = unguarded whole steps (working tree),
# u6 / u8 = u with __launch_bounds__(THREADS, 6 / 8) (at most 40 / 32 registers), u2x = u with twice the
# unrolled rows (8 loads in flight per thread). float32 sums over axis 0 and the middle axis, three
# interleaved rounds, with the read+write ceiling of bench/reductions_cub.cu in the same run.
# From the repository root on one GPU: DEPS=$PWD/.devdeps bash bench/results/reductions_h200/ab_cols_2026-11-28/call2.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > $OUT/machine.txt
export CUJIT_CACHE_DIR=/tmp/cjab
cmake -S . -B /tmp/bnew -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -20 /tmp/cmake.log; exit 1; }
(nvcc -O3 -std=c++17 -arch=native --extended-lambda -o /tmp/cub bench/reductions_cub.cu || echo "cub build failed" >> $L) &
cmake --build /tmp/bnew -j16 --target bench_reductions > /tmp/bnew.log 2>&1 || { grep error -A5 /tmp/bnew.log | head -40; exit 1; }
wait; t built
K=kernel_reduce_cols.cu
for v in g u u6 u8 u2x; do mkdir -p /tmp/tv/$v; cp templates/* /tmp/tv/$v/; done
cp .old/templates/$K /tmp/tv/g/$K
sed -i 's/__launch_bounds__({{THREADS}})/__launch_bounds__({{THREADS}}, 6)/' /tmp/tv/u6/$K
sed -i 's/__launch_bounds__({{THREADS}})/__launch_bounds__({{THREADS}}, 8)/' /tmp/tv/u8/$K
sed -i 's/U = {{UNROLL}}/U = 2 * {{UNROLL}}/' /tmp/tv/u2x/$K
for v in u6 u8 u2x; do cmp -s /tmp/tv/u/$K /tmp/tv/$v/$K && echo "variant $v unchanged!" >> $L; done
python3 - > /tmp/lines.txt <<'PY'
for k in range(2, 25, 2):
    print(f"first:{k}|sum|float32|1|{1<<k}|{1<<(26-k)}")
    if k <= 22: print(f"middle:{k}|sum|float32|4|{1<<k}|{1<<(24-k)}")
PY
sed 's/^\([^|]*\)|sum|/ceil:\1|rw|sum|/' /tmp/lines.txt > /tmp/ceil.txt
for r in 1 2 3; do
  for v in g u u6 u8 u2x; do
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
    if who == "u": plan[cid] = " ".join(f[4:])
ids = []
for (w, c) in t:
    if c not in ids: ids.append(c)
vs = ["g", "u", "u6", "u8", "u2x"]
print("| case | ceiling µs | " + " | ".join(f"{v} µs" for v in vs) + " | " + " | ".join(f"{v} / ceiling" for v in vs) + " | plan (u) |")
print("|---|---:|" + "---:|" * (2 * len(vs)) + "---|")
for c in ids:
    ce = st.median(t[("ceil", c)]) * 1e3
    ms = [st.median(t[(v, c)]) * 1e3 if (v, c) in t else float("nan") for v in vs]
    print(f"| {c} | {ce:.1f} | " + " | ".join(f"{m:.1f}" for m in ms) + " | " + " | ".join(f"{ce/m:.2f}" for m in ms) + f" | {plan.get(c, '')} |")
PY
cat $OUT/ab.md >> $L
