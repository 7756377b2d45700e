#!/usr/bin/env bash
# The columns kernel (issue 20's axis misses), one H200 call: (1) A/B through CUJIT_TEMPLATE_DIR of
# g = the kernel before (git HEAD's templates), tf = g with the tiles of a row varying fastest over the
# blocks' items (blocks that run together read whole rows), cur = the working tree (tf + a flat copy
# variant for axes of length 1, U vectors in flight per thread); float32 sums over axis 0 / the middle
# axis / length-1 axes, three interleaved rounds, with bench/reductions_cub.cu's read+write stream in
# the same run; (2) the [reduce] GPU tests and compute-sanitizer memcheck/racecheck on them with the
# working tree's templates; (3) SASS of the cols kernel at (2^18, 256); (4) the elementwise NumPy diff
# on the GPU (last session's fixes, not yet run on a GPU).
# From the repository root, with .old/ holding HEAD (git archive HEAD | tar -x -C .old):
#   DEPS=$PWD/.devdeps bash bench/results/reductions_h200/ab_cols_order/call1.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjab
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > $OUT/machine.txt
B=/tmp/b
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
(nvcc -O3 -std=c++17 -arch=native --extended-lambda -o /tmp/cub bench/reductions_cub.cu || echo "cub build failed" >> $L) &
cmake --build $B -j16 --target bench_reductions jitrun cujit_gpu_tests > /tmp/build.log 2>&1 || { grep error -A5 /tmp/build.log | head -40; exit 1; }
wait; t built
K=kernel_reduce_cols.cu
for v in g tf cur; do mkdir -p /tmp/tv/$v; cp templates/* /tmp/tv/$v/; done
cp .old/templates/$K /tmp/tv/g/$K; cp .old/templates/$K /tmp/tv/tf/$K
python3 - /tmp/tv/tf/$K <<'PY'
import sys; p = sys.argv[1]; s = open(p).read()
old = """      cj_s = (int)(cj_w % cj_S);
      cj_tile = (cj_w / cj_S) % cj_tiles;
      cj_o = cj_w / ((long long)cj_S * cj_tiles);"""
new = """      const long long cj_q = cj_w / cj_tiles;
      cj_tile = cj_w - cj_q * cj_tiles;
      cj_o = cj_q / cj_S;
      cj_s = (int)(cj_q - cj_o * cj_S);"""
assert old in s; open(p, "w").write(s.replace(old, new))
PY
cmp -s /tmp/tv/g/$K /tmp/tv/tf/$K && echo "tf unchanged!" >> $L
python3 - > /tmp/lines.txt <<'PY'
for k in range(0, 25, 2):
    print(f"first:{k}|sum|float32|1|{1<<k}|{1<<(26-k)}")
    if k <= 22: print(f"middle:{k}|sum|float32|4|{1<<k}|{1<<(24-k)}")
print("last:26x1|sum|float32|67108864|1|1")
print("middle:4x1|sum|float32|4|1|16777216")
PY
sed 's/^\([^|]*\)|sum|/ceil:\1|rw|sum|/' /tmp/lines.txt > /tmp/ceil.txt
printf 'argmax:24x1|argmax|float32|16777216|1|1\nmax16:26x1|max|float16|67108864|1|1\nmean:4x1|sum|float64|4|1|16777216\n' >> /tmp/lines.txt
for r in 1 2 3; do
  for v in g tf cur; do
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
vs = ["g", "tf", "cur"]
print("| case | ceiling µs | " + " | ".join(f"{v} µs" for v in vs) + " | " + " | ".join(f"{v} / ceiling" for v in vs) + " | tf / g | cur / g | plan (cur) |")
print("|---|---:|" + "---:|" * (2 * len(vs) + 2) + "---|")
for c in ids:
    ce = st.median(t[("ceil", c)]) * 1e3 if ("ceil", c) in t else float("nan")
    ms = [st.median(t[(v, c)]) * 1e3 if (v, c) in t else float("nan") for v in vs]
    print(f"| {c} | {ce:.1f} | " + " | ".join(f"{m:.1f}" for m in ms) + " | " + " | ".join(f"{ce/m:.2f}" for m in ms) + f" | {ms[0]/ms[1]:.3f} | {ms[0]/ms[2]:.3f} | {plan.get(c, '')} |")
PY
cat $OUT/ab.md >> $L
timeout 170 $B/tests/cujit_gpu_tests "[reduce]" > $OUT/tests_reduce.log 2>&1; t "[reduce] exit $?"
grep -E "test cases|assertions" $OUT/tests_reduce.log | tail -2 | tee -a $L; grep -E "FAILED" -A10 $OUT/tests_reduce.log | head -30 >> $L
for c in 'x=rand(262144x256)|out = sum(x, axis=0)|cols18' 'x=rand(1x67108864)|out = sum(x, axis=0)|flat'; do
  IFS='|' read -r i p n <<< "$c"
  $B/tools/jitrun -i "$i" "$p" --emit cubin -o /tmp/$n.cubin > /dev/null 2>&1 && cuobjdump -sass /tmp/$n.cubin > /tmp/$n.sass 2>&1
  echo "== $n: $(grep -c LDG /tmp/$n.sass) LDG" >> $OUT/sass.txt; grep -E "LDG|STG|BAR|BRA|ATOM|IMAD.WIDE|FADD|ISETP" /tmp/$n.sass | head -150 >> $OUT/sass.txt
done
t sass
timeout 100 python3 tests/cli/numpy_elementwise_diff.py $B/tools/jitrun 300 20261129 0 > $OUT/diff_gpu.log 2>&1; t "numpy_elementwise_diff on GPU 0 exit $? ($(tail -1 $OUT/diff_gpu.log))"
grep FAIL $OUT/diff_gpu.log | head -10 >> $L
left=$(( 575 - $(el) ))
if [ $left -gt 40 ]; then
  CUJIT_TEST_REDUCE_MAX=20000 timeout $(( left / 2 )) compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/cujit_gpu_tests "[reduce]" > /tmp/san.log 2>&1; t "memcheck [reduce] exit $?"; grep -E "ERROR SUMMARY|test cases" /tmp/san.log | tail -2 | tee -a $L
  CUJIT_TEST_REDUCE_MAX=20000 timeout $(( left / 2 - 5 )) compute-sanitizer --tool racecheck --error-exitcode 9 $B/tests/cujit_gpu_tests "[reduce]" > /tmp/san2.log 2>&1; t "racecheck [reduce] exit $?"; grep -E "RACECHECK SUMMARY|test cases" /tmp/san2.log | tail -2 | tee -a $L
fi
