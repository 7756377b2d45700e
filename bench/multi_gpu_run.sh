#!/usr/bin/env bash
# Issue 21's multi-GPU goals in one call on a machine of two GPUs, from the repository root:
#   DEPS=$PWD/.devdeps OLD=$PWD/.old bash bench/multi_gpu_run.sh
# A Release build of the working tree (and of OLD, an earlier tree's jitrun, for before/after in
# the same run); the multi-GPU and split-reduction GPU tests; bench_multi_gpu (evaluate_split with
# new and caller-owned outputs); bench_pool_alloc (10^4 allocating calls) on GPU 0; then jitrun end
# to end on 2^30 float32 elements, --device 0 against --device all, interleaved, wall time per
# process, with the summary line only and with the output written to a .npy file. Logs to $OUT.
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CUJIT_CACHE_DIR=/tmp/cjmg
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; nvidia-smi topo -m; date -u; nproc; } > $OUT/machine.txt 2>&1
NJ=$(nproc)
B=/tmp/bm
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build $B -j$NJ --target jitrun cujit_gpu_tests bench_multi_gpu bench_pool_alloc > /tmp/build.log 2>&1 || { grep -E 'error' -A5 /tmp/build.log | head -60; exit 1; }
t build ok
JO=
if [ -n "${OLD:-}" ]; then
  cmake -S $OLD -B /tmp/bo -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_TESTS=OFF -DCUJIT_BUILD_BENCH=OFF \
    -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake_old.log 2>&1 && cmake --build /tmp/bo -j$NJ --target jitrun > /tmp/build_old.log 2>&1 && JO=/tmp/bo/tools/jitrun
  t "old build: ${JO:-failed}"
fi
timeout ${TEST_S:-200} $B/tests/cujit_gpu_tests "[multi_gpu],[split_reduce],[pool]" > $OUT/tests.log 2>&1; t "tests exit $? ($(tail -3 $OUT/tests.log | tr '\n' ' '))"
timeout 120 $B/bench/bench_multi_gpu $OUT --devices all > $OUT/bench_multi_gpu.log 2>&1; t "bench_multi_gpu exit $?"
(cd $B/bench && timeout 90 ./bench_pool_alloc --calls 10000 --runs 7) > $OUT/pool_alloc.md 2>&1; t "pool_alloc exit $?"
J=$B/tools/jitrun
IN=(-i 'x=rand((32768,32768)):float32' -i 'y=rand((32768,32768)):float32')
P='out = x*y + 5'
for j in $J $JO; do for d in 0 all; do $j --device $d "${IN[@]}" "$P" > /dev/null 2>&1; done; done  # caches warm
e2e() {  # e2e LABEL JITRUN DEVICE [ARGS...]: wall seconds of one process
  local label=$1 j=$2 d=$3; shift 3
  local a=$(date +%s.%N)
  $j --device $d "${IN[@]}" "$@" "$P" > /tmp/e2e.txt 2>&1 || echo "FAIL $label: $(head -3 /tmp/e2e.txt)" >> $L
  local b=$(date +%s.%N)
  echo "$label $(awk "BEGIN{print $b - $a}")" >> $OUT/e2e.txt
  rm -f /tmp/e2e_out.npy
}
for r in $(seq ${REPS:-5}); do
  e2e "new summary device=0" $J 0; e2e "new summary device=all" $J all
  e2e "new npy device=0" $J 0 -o out=/tmp/e2e_out.npy; e2e "new npy device=all" $J all -o out=/tmp/e2e_out.npy
  if [ -n "$JO" ] && [ $r -le 3 ]; then e2e "old summary device=0" $JO 0; e2e "old summary device=all" $JO all; fi
done
t e2e done
for d in 0 all; do echo "== new --device $d -v" ; $J --device $d -v "${IN[@]}" "$P" 2>&1; echo "== new --device $d -v -o" ; $J --device $d -v "${IN[@]}" -o out=/tmp/e2e_out.npy "$P" 2>&1; rm -f /tmp/e2e_out.npy; done > $OUT/verbose.txt
[ -n "$JO" ] && for d in 0 all; do echo "== old --device $d -v"; $JO --device $d -v "${IN[@]}" "$P" 2>&1; done >> $OUT/verbose.txt
python3 - $OUT/e2e.txt > $OUT/e2e.md <<'PY'
import sys, statistics as st, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    *k, v = line.split(); d[" ".join(k)].append(float(v))
print("| run | processes | median s | min s | max s |\n|---|---:|---:|---:|---:|")
for k, v in d.items(): print(f"| {k} | {len(v)} | {st.median(v):.3f} | {min(v):.3f} | {max(v):.3f} |")
PY
cat $OUT/e2e.md >> $L
t done
