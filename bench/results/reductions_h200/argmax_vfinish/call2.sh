#!/usr/bin/env bash
# Call 2 (2026-11-29, ninth session, after call 1): the rows kernel folds as it loads where a
# chunk is shorter than 8 steps (plan.loads_first, a rule in reduce_plan, not an environment
# variable), against main's loads-first everywhere (forced with CUJIT_X_LOADG=4); with it,
# argmax's cj_vfinish loading G slots at a time (CUJIT_X_VFINISH) and argmax with 2 accumulator
# rows, not 4 (CUJIT_X_ARGU=2). Experiment variables of this call's working tree only.
# Three interleaved rounds against the CUB-style read ceiling, then Nsight Compute of float32
# sum at 2^20 and 2^24 (what a whole reduction pays after its last load).
#   DEPS=$PWD/.devdeps bash bench/results/reductions_h200/argmax_vfinish/call2.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > $OUT/machine.txt
B=$PWD/build-dev
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log | tee -a $L; exit 1; }
[ -x /tmp/cub ] || (nvcc -O3 -std=c++17 -arch=native --extended-lambda -o /tmp/cub bench/reductions_cub.cu || echo "cub build failed" >> $L) &
cmake --build $B -j16 --target bench_reductions cujit_gpu_tests > /tmp/build.log 2>&1 || { grep error -A5 /tmp/build.log | head -40 | tee -a $L; exit 1; }
wait; t built
python3 - > /tmp/lines.txt <<'PY'
for dt in ("float32", "float64", "float16", "int32"):
    for k in (20, 22, 24, 26, 28):
        print(f"am:{dt}:{k}|argmax|{dt}|1|{1<<k}|1")
for k in (20, 22, 24, 26, 28):
    print(f"dot16:{k}|dot|float16|1|{1<<k}|1")
    print(f"sum16:{k}|sum|float16|1|{1<<k}|1")
for k in (20, 22, 24):
    for op in ("sum", "dot", "max"):
        print(f"{op}32:{k}|{op}|float32|1|{1<<k}|1")
    print(f"sum64:{k}|sum|float64|1|{1<<k}|1")
PY
python3 -c '
import sys
for ln in open("/tmp/lines.txt"):
    f = ln.strip().split("|")
    print("|".join([f"ceil:{f[0]}", "read"] + f[1:]))' > /tmp/ceil.txt
run() {  # VARIANT ENV...
  local v=$1; shift
  env "$@" CUJIT_CACHE_DIR=/tmp/cjt_$v timeout 150 $B/bench/bench_reductions < /tmp/lines.txt 2>>$L | sed "s/^/$v $r /" >> $OUT/ab.txt
}
for r in 1 2 3; do
  run main CUJIT_X_LOADG=4
  run rule CUJIT_X_VFINISH=0
  run ruleV4 CUJIT_X_VFINISH=4
  run ruleV2 CUJIT_X_VFINISH=2
  run ruleV4U2 CUJIT_X_VFINISH=4 CUJIT_X_ARGU=2
  timeout 90 /tmp/cub < /tmp/ceil.txt | sed "s/^/ceil $r /" >> $OUT/ab.txt
  t "round $r"
done
python3 bench/results/reductions_h200/f16_loads_first/ab_table.py $OUT/ab.txt main rule ruleV4 ruleV2 ruleV4U2 > $OUT/ab.md; cat $OUT/ab.md >> $L; t "A/B"
S1="--section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section InstructionStats"
N=$OUT/ncu.txt; echo "# Nsight Compute, H200, $(date -u +%F): ncu -k regex:cj_ --launch-skip 3 --launch-count 1 $S1" > $N
for c in "sum32:20|sum|float32|1|1048576|1" "sum32:24|sum|float32|1|16777216|1" "am:float32:20|argmax|float32|1|1048576|1"; do
  echo "== rule $c" >> $N; echo "$c" | CUJIT_CACHE_DIR=/tmp/cjt_rule timeout 60 ncu -k regex:cj_ --launch-skip 3 --launch-count 1 $S1 $B/bench/bench_reductions >> $N 2>&1; t "ncu $c exit $?"
done
echo "ceil:sum32:24|read|sum|float32|1|16777216|1" | timeout 60 ncu -k regex:read_stream --launch-skip 3 --launch-count 1 $S1 /tmp/cub >> $N 2>&1; t "ncu ceiling exit $?"
