#!/usr/bin/env bash
# One nvidia-h200-x2 call (2026-11-28, third session): issue 21's multi-GPU goals on two H200s
# (bench/multi_gpu_run.sh: the [multi_gpu],[split_reduce],[pool] tests, bench_multi_gpu,
# bench_pool_alloc, jitrun --device 0 against all end to end), then on GPU 0 the CTest `gpu` entry's
# cases (raw CUDA kernels in the strided layout among them) and compute-sanitizer memcheck on the
# strided layout's kernel ([inplace] but the 10^9 case, raw CUDA mode).
# From the repository root: DEPS=$PWD/.devdeps bash bench/results/h200x2_2026-11-28/call1.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
S0=$(date +%s)
TEST_S=150 REPS=3 bash bench/multi_gpu_run.sh
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjmg
B=/tmp/bm; T=$OUT/tests_gpu0.log; L=$OUT/steps.log
t() { echo "[$(( $(date +%s) - S0 ))s total] $*" | tee -a $L; }
export CUDA_VISIBLE_DEVICES=0
left() { echo $(( 585 - ($(date +%s) - S0) )); }
timeout $(( $(left) / 2 )) $B/tests/cujit_gpu_tests "~[.]~[multi]~[huge_index]~[huge_rows]~[generate_4gb]~[manifest]~[memory]~[reference]~[reduction-gpu]~[reduce]~[inplace]" > $T 2>&1
t "gpu entry exit $? ($(tail -2 $T | tr '\n' ' '))"
grep -E "FAILED" -A12 $T | head -30 >> $L
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout $(left) $CS --tool memcheck --leak-check no --error-exitcode 9 $B/tests/cujit_gpu_tests "[inplace]~[huge],[raw_cuda]" > $OUT/memcheck.log 2>&1
t "memcheck [inplace]~[huge],[raw_cuda] exit $? ($(tail -3 $OUT/memcheck.log | tr '\n' ' '))"
