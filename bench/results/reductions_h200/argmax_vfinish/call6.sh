#!/usr/bin/env bash
# Call 6 (2026-11-29, ninth session): half the chunks (256, not 512) for every whole reduction of up to
# 32 MiB, as argmax has since call 5: sum, max and sum(x*y) of float32/float64/float16/int32 at 2^20,
# 2^22 and 2^23, CUJIT_X_ROWITEMS=256 (an experiment variable of this call's working tree only) against
# main. Three interleaved rounds with the read ceiling.
#   DEPS=$PWD/.devdeps bash bench/results/reductions_h200/argmax_vfinish/call6.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > $OUT/machine.txt
B=$PWD/build-dev
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF -DCUJIT_BUILD_TESTS=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log | tee -a $L; exit 1; }
[ -x /tmp/cub ] || (nvcc -O3 -std=c++17 -arch=native --extended-lambda -o /tmp/cub bench/reductions_cub.cu || echo "cub build failed" >> $L) &
cmake --build $B -j16 --target bench_reductions > /tmp/build.log 2>&1 || { grep error -A5 /tmp/build.log | head -40 | tee -a $L; exit 1; }
wait; t built
python3 - > /tmp/lines.txt <<'PY'
for op in ("sum", "max", "dot"):
    for dt in ("float32", "float64", "float16", "int32"):
        for k in (20, 22, 23):
            print(f"{op}:{dt}:{k}|{op}|{dt}|1|{1<<k}|1")
PY
python3 -c '
for ln in open("/tmp/lines.txt"):
    f = ln.strip().split("|")
    print("|".join([f"ceil:{f[0]}", "read"] + f[1:]))' > /tmp/ceil.txt
for r in 1 2 3; do
  CUJIT_CACHE_DIR=/tmp/cjt_m timeout 100 $B/bench/bench_reductions < /tmp/lines.txt 2>>$L | sed "s/^/main $r /" >> $OUT/ab.txt
  CUJIT_X_ROWITEMS=256 CUJIT_CACHE_DIR=/tmp/cjt_h timeout 100 $B/bench/bench_reductions < /tmp/lines.txt 2>>$L | sed "s/^/half $r /" >> $OUT/ab.txt
  timeout 60 /tmp/cub < /tmp/ceil.txt | sed "s/^/ceil $r /" >> $OUT/ab.txt
  t "round $r"
done
python3 bench/results/reductions_h200/f16_loads_first/ab_table.py $OUT/ab.txt main half > $OUT/ab.md; t "A/B"
