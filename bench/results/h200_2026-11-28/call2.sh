#!/usr/bin/env bash
# One H200 call (2026-11-28, second session), after bench_reductions' inputs became varied values
# (and a first try at cutting exact one-row reductions into a chunk per resident block, which never
# took effect: it compared the chunks with the grid, itself capped at the chunks; the kernels ran
# the chunks of 05efe28, NOTES.md): a
# Release build; [reduce] and the fused programs in full; bench/reductions.py with every peer
# (tables and plots to $OUT/red); Nsight Compute of the row normalisation and float16 argmax
# at 2^24; compute-sanitizer memcheck and racecheck of float16 and float32 argmax and float32 max
# of 2^24 (one chunk per resident block).
# From the repository root: DEPS=$PWD/.devdeps bash bench/results/h200_2026-11-28/call2.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjc
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } | tee -a $L
B=/tmp/b
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build $B -j$(nproc) --target cujit_gpu_tests bench_reductions > /tmp/build.log 2>&1 || { grep -E 'error' -A5 /tmp/build.log | head -60; exit 1; }
t build ok
timeout 150 $B/tests/cujit_gpu_tests "[reduce],fused reduction*" > $OUT/tests.log 2>&1; t "[reduce],fused exit $?"
grep -E "test cases|assertions" $OUT/tests.log | tail -2 | tee -a $L
grep -E "FAILED|failed" -A12 $OUT/tests.log | head -40 >> $L
mkdir -p $OUT/red
timeout ${BENCH_S:-300} python3 bench/reductions.py $B/bench/bench_reductions $OUT/red > $OUT/red/bench.log 2>&1; t "bench exit $?"
S1="--section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section InstructionStats --section ComputeWorkloadAnalysis --section SourceCounters"
N=$OUT/ncu.txt
echo "# Nsight Compute, H200, $(date -u +%F): one launch each after 3 (ncu -k regex:cj_ --launch-skip 3 --launch-count 1 $S1), Release build of the working tree" > $N
for line in "norm|norm|float32|65536|4096|1" "argmax16|argmax|float16|1|16777216|1"; do
  echo "== $line" >> $N; echo "$line" | timeout 60 ncu -k regex:cj_ --launch-skip 3 --launch-count 1 $S1 $B/bench/bench_reductions >> $N 2>&1; t "ncu $line exit $?"
done
printf 'a16|argmax|float16|1|16777221|1\na32|argmax|float32|1|16777221|1\nm32|max|float32|1|16777221|1\n' > /tmp/san_cases
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $B/bench/bench_reductions < /tmp/san_cases > /tmp/mem.log 2>&1; t "memcheck argmax/max 2^24+5 exit $?"; tail -3 /tmp/mem.log | tee -a $L
timeout 90 compute-sanitizer --tool racecheck --error-exitcode 9 $B/bench/bench_reductions < /tmp/san_cases > /tmp/race.log 2>&1; t "racecheck argmax/max 2^24+5 exit $?"; tail -3 /tmp/race.log | tee -a $L
