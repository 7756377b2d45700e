#!/usr/bin/env bash
# Call 3 (2026-11-29, ninth session, after call 2): argmax's plan. Call 2 found 2 accumulator
# rows (U) 1.04-1.27x faster than 4 at 2^22-2^26 but slower where that made more chunks (2^20
# float32/int32: 512 chunks, not 256; float64 2^28: 4096, not 2048). Variants (experiment
# variables of this call's working tree only): CUJIT_X_ARGU (U), CUJIT_X_ARGSTEPS (most steps
# of a chunk, x16), CUJIT_X_ARGITEMS (most chunks of a row), CUJIT_X_VFINISH (slots loaded
# together in cj_vfinish), and reduce_bl.cuh: the pair combine of the block trees without
# branches (templates from $OUT-free /tmp/tv/bl). Three interleaved rounds, the read ceiling.
#   DEPS=$PWD/.devdeps bash bench/results/reductions_h200/argmax_vfinish/call3.sh
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
H=bench/results/reductions_h200/argmax_vfinish
rm -rf /tmp/tv; mkdir -p /tmp/tv/main /tmp/tv/bl; cp templates/* /tmp/tv/main/; cp templates/* /tmp/tv/bl/; cp $H/reduce_bl.cuh /tmp/tv/bl/reduce.cuh
python3 - > /tmp/lines.txt <<'PY'
for dt in ("float32", "float64", "float16", "int32"):
    for k in (20, 22, 24, 26, 28, 30):
        print(f"am:{dt}:{k}|argmax|{dt}|1|{1<<k}|1")
PY
python3 -c '
for ln in open("/tmp/lines.txt"):
    f = ln.strip().split("|")
    print("|".join([f"ceil:{f[0]}", "read"] + f[1:]))' > /tmp/ceil.txt
run() {  # VARIANT TEMPLATES ENV...
  local v=$1 tv=$2; shift 2
  env "$@" CUJIT_TEMPLATE_DIR=/tmp/tv/$tv CUJIT_CACHE_DIR=/tmp/cjt_$v timeout 150 $B/bench/bench_reductions < /tmp/lines.txt 2>>$L | sed "s/^/$v $r /" >> $OUT/ab.txt
}
for r in 1 2 3; do
  run main main CUJIT_X_VFINISH=0
  run u4v4i256 main CUJIT_X_VFINISH=4 CUJIT_X_ARGITEMS=256
  run u2 main CUJIT_X_VFINISH=4 CUJIT_X_ARGU=2 CUJIT_X_ARGSTEPS=8
  run u2i256 main CUJIT_X_VFINISH=4 CUJIT_X_ARGU=2 CUJIT_X_ARGSTEPS=8 CUJIT_X_ARGITEMS=256
  run u2i256bl bl CUJIT_X_VFINISH=4 CUJIT_X_ARGU=2 CUJIT_X_ARGSTEPS=8 CUJIT_X_ARGITEMS=256
  run bl bl CUJIT_X_VFINISH=0
  timeout 90 /tmp/cub < /tmp/ceil.txt | sed "s/^/ceil $r /" >> $OUT/ab.txt
  t "round $r"
done
python3 bench/results/reductions_h200/f16_loads_first/ab_table.py $OUT/ab.txt main u4v4i256 u2 u2i256 u2i256bl bl > $OUT/ab.md; t "A/B"
