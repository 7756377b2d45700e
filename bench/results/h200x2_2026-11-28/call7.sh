#!/usr/bin/env bash
# Seventh call (nvidia-h200-x2, GPU 0 only): float32 argmax of 2^26 and 2^28 against CUB's
# DeviceReduce::ArgMax on the benchmark's varied values: times (bench_reductions and the CUB harness,
# medians of 25) and Nsight Compute of each system's main kernel at 2^26.
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjc CUDA_VISIBLE_DEVICES=0
S=$(date +%s); L=$OUT/steps.log; t() { echo "[$(( $(date +%s) - S ))s] $*" | tee -a $L; }
B=/tmp/b
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_TESTS=OFF -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build $B -j$(nproc) --target bench_reductions > /tmp/build.log 2>&1 &
nvcc -O3 -std=c++17 -arch=native --extended-lambda -o /tmp/rcub bench/reductions_cub.cu > /tmp/nvcc.log 2>&1 || { tail -20 /tmp/nvcc.log; }
wait; t build ok
R=$B/bench/bench_reductions
{ for n in 67108864 268435456; do for k in 1 2 3; do echo "cujit$n|argmax|float32|1|$n|1"; done; done; } | $R > $OUT/times.txt 2>&1
{ for n in 67108864 268435456; do for k in 1 2 3; do echo "cub$n|cub|argmax|float32|1|$n|1"; echo "read$n|read|argmax|float32|1|$n|1"; done; done; } | /tmp/rcub >> $OUT/times.txt 2>&1
t times done
S1="--section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section InstructionStats --section SchedulerStats"
N=$OUT/ncu.txt
echo "# Nsight Compute, H200, $(date -u +%F): float32 argmax of 2^26 varied values, one launch after 3 of each system's main kernel" > $N
echo "== cujit (ncu -k regex:cj_)" >> $N
echo "a|argmax|float32|1|67108864|1" | timeout 100 ncu -k regex:cj_ --launch-skip 3 --launch-count 1 $S1 $R >> $N 2>&1; t "ncu cujit exit $?"
echo "== CUB (ncu -k regex:DeviceReduceKernel)" >> $N
echo "c|cub|argmax|float32|1|67108864|1" | timeout 100 ncu -k regex:DeviceReduceKernel --launch-skip 3 --launch-count 1 $S1 /tmp/rcub >> $N 2>&1; t "ncu cub exit $?"
echo "== CUB single tile (ncu -k regex:SingleTile)" >> $N
echo "c|cub|argmax|float32|1|67108864|1" | timeout 100 ncu -k regex:SingleTile --launch-skip 3 --launch-count 1 --section SpeedOfLight --section LaunchStats /tmp/rcub >> $N 2>&1; t "ncu cub tile exit $?"
