#!/usr/bin/env bash
# Call 3 (2026-11-29, tenth session): argmin/argmax with more loads a step than slots. The
# rows kernel's U vectors of a step now go round ACC accumulator rows (ReducePlan::acc_rows);
# argmax has kept U = ACC = 2 (4 for 8-byte values), so a thread had 32 bytes of loads in
# flight where a sum has 64, and from 2^26 ran at 0.89-0.95 of the read stream, behind CUB.
# Variants: CUJIT_X_ARGU=m (U = m x ACC; an experiment variable of this call's working tree
# only), m = 1 (main), 2, 4. Three interleaved rounds with the read ceiling; tables by
# ../reductions_h200/f16_loads_first/ab_table.py.
#   DEPS=$PWD/.devdeps bash bench/results/gpu_check_2026-11-29/call3.sh   (logs to $OUT)
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
    for k in (20, 22, 24, 26, 28, 30):
        print(f"am:{dt}:{k}|argmax|{dt}|1|{1<<k}|1")
PY
python3 -c '
for ln in open("/tmp/lines.txt"):
    f = ln.strip().split("|")
    print("|".join([f"ceil:{f[0]}", "read"] + f[1:]))' > /tmp/ceil.txt
run() {  # VARIANT ENV...
  local v=$1; shift
  env "$@" CUJIT_TEMPLATE_DIR=$PWD/templates CUJIT_CACHE_DIR=/tmp/cjt_$v timeout 150 $B/bench/bench_reductions < /tmp/lines.txt 2>>$L | sed "s/^/$v $r /" >> $OUT/ab.txt
}
for r in 1 2 3; do
  run main CUJIT_X_ARGU=1
  run m2 CUJIT_X_ARGU=2
  run m4 CUJIT_X_ARGU=4
  timeout 90 /tmp/cub < /tmp/ceil.txt | sed "s/^/ceil $r /" >> $OUT/ab.txt
  t "round $r"
done
python3 bench/results/reductions_h200/f16_loads_first/ab_table.py $OUT/ab.txt main m2 m4 > $OUT/ab.md; t "A/B"
# The [reduce] tests with each variant (the slots' index order with U > ACC).
for m in 2 4; do
  CUJIT_X_ARGU=$m CUJIT_CACHE_DIR=/tmp/cjs_$m timeout 100 $B/tests/cujit_gpu_tests "[reduce]" > /tmp/t$m.log 2>&1; t "[reduce] m=$m exit $? ($(grep -E 'test cases' /tmp/t$m.log | tail -1))"
done
