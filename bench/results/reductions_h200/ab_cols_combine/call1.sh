#!/usr/bin/env bash
# Call 1 (2026-11-29): the columns kernel's last block, A/B. g = HEAD's kernel (.old/); glb = g with
# __launch_bounds__(256, 4) (64 registers: float64 sums took 78, 3 blocks per SM); vc64 = the last
# block's partials loaded VEC at a time (16-byte loads), 64 bytes of them in flight per thread; cur =
# vc64 + the bound (the working tree); vc16lb = cur with one split's vector in flight. Three
# interleaved rounds with the read+write stream; split counts forced for the two misses; Nsight
# Compute of g and cur on the misses; [reduce] in full on cur, memcheck and racecheck on the small shapes.
# From the repository root, with .old/ holding HEAD (git archive HEAD | tar -x -C .old):
#   DEPS=$PWD/.devdeps bash bench/results/reductions_h200/ab_cols_combine/call1.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjab
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > $OUT/machine.txt
B=/tmp/b
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
[ -x /tmp/cub ] || (nvcc -O3 -std=c++17 -arch=native --extended-lambda -o /tmp/cub bench/reductions_cub.cu || echo "cub build failed" >> $L) &
cmake --build $B -j16 --target bench_reductions jitrun cujit_gpu_tests > /tmp/build.log 2>&1 || { grep error -A5 /tmp/build.log | head -40; exit 1; }
wait; t built
K=kernel_reduce_cols.cu
rm -rf /tmp/tv; for v in g glb vc64 cur vc16lb; do mkdir -p /tmp/tv/$v; cp templates/* /tmp/tv/$v/; done
for v in g glb; do cp .old/templates/$K .old/templates/reduce.cuh /tmp/tv/$v/; done
sed -i 's/__launch_bounds__({{THREADS}})/__launch_bounds__({{THREADS}}, 4)/' /tmp/tv/glb/$K
sed -i 's/__launch_bounds__({{THREADS}}, 4)/__launch_bounds__({{THREADS}})/' /tmp/tv/vc64/$K
sed -i 's/CU_BYTES = 64,/CU_BYTES = 16,/' /tmp/tv/vc16lb/$K
for v in g glb vc64 cur vc16lb; do md5sum /tmp/tv/$v/$K; done >> $L
python3 - > /tmp/lines.txt <<'PY'
for k in range(0, 25, 2):
    print(f"first:{k}|sum|float32|1|{1<<k}|{1<<(26-k)}")
    if k <= 22: print(f"middle:{k}|sum|float32|4|{1<<k}|{1<<(24-k)}")
print("f64first:20|sum|float64|1|1048576|32")
print("f64first:16|sum|float64|1|65536|512")
print("f64middle:10|sum|float64|4|1024|4096")
for s in (256, 384, 1024):
    print(f"first:18s{s}|sum|float32|1|262144|256|{s}")
for s in (512, 768, 2048):
    print(f"first:20s{s}|sum|float32|1|1048576|64|{s}")
for s in (512, 2048):
    print(f"f64first:20s{s}|sum|float64|1|1048576|32|{s}")
PY
sed 's/^\([^|]*\)|sum|\([^|]*\)|\([^|]*\)|\([^|]*\)|\([^|]*\).*/ceil:\1|rw|sum|\2|\3|\4|\5/' /tmp/lines.txt > /tmp/ceil.txt
printf 'argmax:first20|argmax|float32|1|1048576|64\nvar:first20|var|float32|1|1048576|64\nmax16:first20|max|float16|1|1048576|64\nsum16:first18|sum|float16|1|262144|256\n' >> /tmp/lines.txt
for r in 1 2 3; do
  for v in g glb vc64 cur vc16lb; do
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
    if who == "cur": plan[cid] = " ".join(f[4:])
ids = []
for (w, c) in t:
    if c not in ids and w != "ceil": ids.append(c)
vs = ["g", "glb", "vc64", "cur", "vc16lb"]
print("| case | ceiling µs | " + " | ".join(f"{v} µs" for v in vs) + " | " + " | ".join(f"{v} / ceiling" for v in vs) + " | cur / g | plan (cur) |")
print("|---|---:|" + "---:|" * (2 * len(vs) + 1) + "---|")
for c in ids:
    ce = st.median(t[("ceil", c)]) * 1e3 if ("ceil", c) in t else float("nan")
    ms = [st.median(t[(v, c)]) * 1e3 if (v, c) in t else float("nan") for v in vs]
    print(f"| {c} | {ce:.1f} | " + " | ".join(f"{m:.1f}" for m in ms) + " | " + " | ".join(f"{ce/m:.2f}" for m in ms) + f" | {ms[0]/ms[3]:.3f} | {plan.get(c, '')} |")
PY
cat $OUT/ab.md >> $L
S1="--section LaunchStats --section Occupancy --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats"
N=$OUT/ncu.txt; echo "# Nsight Compute, $(date -u +%F): ncu -k regex:cj_ --launch-skip 3 --launch-count 1 $S1" > $N
for v in g cur; do for line in "first:18|sum|float32|1|262144|256" "f64first:20|sum|float64|1|1048576|32"; do
  echo "== $v $line" >> $N; echo "$line" | CUJIT_TEMPLATE_DIR=/tmp/tv/$v timeout 40 ncu -k regex:cj_ --launch-skip 3 --launch-count 1 $S1 $B/bench/bench_reductions >> $N 2>&1; t "ncu $v $line exit $?"
done; done
timeout 200 $B/tests/cujit_gpu_tests "[reduce]" > $OUT/tests_reduce.log 2>&1; t "[reduce] exit $?"
grep -E "test cases|assertions" $OUT/tests_reduce.log | tail -2 | tee -a $L; grep -E "FAILED" -A10 $OUT/tests_reduce.log | head -30 >> $L
for tool in memcheck racecheck; do
  CUJIT_TEST_REDUCE_MAX=30000 timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $B/tests/cujit_gpu_tests "[reduce]" > /tmp/san.log 2>&1; t "$tool [reduce] exit $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases" /tmp/san.log | tail -2 | tee -a $L
done
