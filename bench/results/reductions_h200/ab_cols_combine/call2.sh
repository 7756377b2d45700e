#!/usr/bin/env bash
# Call 2 (2026-11-29, after call 1): g = HEAD's columns kernel template (.old/; the plans are the new
# binary's, so g has the new split counts: call 1 has HEAD in full) against cur = the working tree:
# call 1's vc16lb (the last block's partials one split's vector at a time, __launch_bounds__(256, 4)
# but for the flat variant) with the columns' split count capped at one round of blocks (512 items,
# kRowItems, where it was two). Three interleaved rounds with the read+write stream on float32,
# float64, float16 sums and argmax/var/max over axis 0 and the middle axis. Then bench/reductions.py
# with every peer (tables and plots to $OUT/red), compute-sanitizer memcheck and racecheck on the
# small [reduce] shapes. The build goes to build-dev/ (kept for a next call on a warm machine).
# From the repository root, with .old/ holding HEAD (git archive HEAD | tar -x -C .old):
#   DEPS=$PWD/.devdeps bash bench/results/reductions_h200/ab_cols_combine/call2.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjab
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > $OUT/machine.txt
B=$PWD/build-dev
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
[ -x /tmp/cub ] || (nvcc -O3 -std=c++17 -arch=native --extended-lambda -o /tmp/cub bench/reductions_cub.cu || echo "cub build failed" >> $L) &
cmake --build $B -j16 --target bench_reductions jitrun cujit_gpu_tests > /tmp/build.log 2>&1 || { grep error -A5 /tmp/build.log | head -40; exit 1; }
wait; t built
K=kernel_reduce_cols.cu
rm -rf /tmp/tv; for v in g cur; do mkdir -p /tmp/tv/$v; cp templates/* /tmp/tv/$v/; done
cp .old/templates/$K .old/templates/reduce.cuh /tmp/tv/g/
python3 - > /tmp/lines.txt <<'PY'
for k in range(0, 25, 2):
    print(f"first:{k}|sum|float32|1|{1<<k}|{1<<(26-k)}")
    if k <= 22: print(f"middle:{k}|sum|float32|4|{1<<k}|{1<<(24-k)}")
for k in (4, 10, 16, 20, 22):
    print(f"f64first:{k}|sum|float64|1|{1<<k}|{1<<(25-k)}")
    print(f"f16first:{k}|sum|float16|1|{1<<k}|{1<<(27-k)}")
print("f64middle:10|sum|float64|4|1024|4096")
print("f64middle:18|sum|float64|4|262144|16")
PY
sed 's/^\([^|]*\)|sum|\([^|]*\)|\([^|]*\)|\([^|]*\)|\([^|]*\).*/ceil:\1|rw|sum|\2|\3|\4|\5/' /tmp/lines.txt > /tmp/ceil.txt
printf 'argmax:first20|argmax|float32|1|1048576|64\nargmax:first12|argmax|float32|1|4096|16384\nvar:first20|var|float32|1|1048576|64\nvar:first12|var|float32|1|4096|16384\nmax16:first20|max|float16|1|1048576|64\nmax16:middle16|max|float16|4|65536|256\n' >> /tmp/lines.txt
for r in 1 2 3; do
  for v in g cur; do
    CUJIT_TEMPLATE_DIR=/tmp/tv/$v timeout 100 $B/bench/bench_reductions < /tmp/lines.txt 2>>$L | sed "s/^/$v $r /" >> $OUT/ab.txt
  done
  /tmp/cub < /tmp/ceil.txt | sed "s/^/ceil $r /" >> $OUT/ab.txt
  t "round $r"
done
python3 - $OUT/ab.txt > $OUT/ab.md <<'PY'
import sys, statistics as st, collections
t = collections.defaultdict(list); plan = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 4: continue
    who, cid = f[0], f[2].replace("ceil:", "")
    try: t[(who, cid)].append(float(f[3]))
    except ValueError: continue
    plan[(who, cid)] = " ".join(f[4:])
ids = []
for (w, c) in t:
    if c not in ids and w != "ceil": ids.append(c)
vs = ["g", "cur"]
print("| case | ceiling µs | g µs | cur µs | g / ceiling | cur / ceiling | cur / g | plan (g) | plan (cur) |")
print("|---|---:|---:|---:|---:|---:|---:|---|---|")
for c in ids:
    ce = st.median(t[("ceil", c)]) * 1e3 if ("ceil", c) in t else float("nan")
    ms = [st.median(t[(v, c)]) * 1e3 if (v, c) in t else float("nan") for v in vs]
    print(f"| {c} | {ce:.1f} | " + " | ".join(f"{m:.1f}" for m in ms) + " | " + " | ".join(f"{ce/m:.2f}" for m in ms) + f" | {ms[0]/ms[1]:.3f} | {plan.get(('g', c), '')} | {plan.get(('cur', c), '')} |")
PY
cat $OUT/ab.md >> $L
mkdir -p $OUT/red
timeout ${BENCH_S:-300} python3 bench/reductions.py $B/bench/bench_reductions $OUT/red > $OUT/red/bench.log 2>&1; t "reductions.py exit $?"
for tool in memcheck racecheck; do
  CUJIT_TEST_REDUCE_MAX=30000 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/tests/cujit_gpu_tests "[reduce]" > /tmp/san.log 2>&1; t "$tool [reduce] exit $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases" /tmp/san.log | tail -2 | tee -a $L
done
