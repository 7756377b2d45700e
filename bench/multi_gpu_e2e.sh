#!/usr/bin/env bash
# jitrun end to end on 2^30 float32 elements, --device 0 against --device all, with -v's timeline
# of each phase; then the multi-GPU GPU tests. From the repository root on a machine of two GPUs:
#   DEPS=$PWD/.devdeps bash bench/multi_gpu_e2e.sh      (logs to $OUT)
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CUJIT_CACHE_DIR=/tmp/cjmg
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; nproc; } > $OUT/machine.txt 2>&1
B=/tmp/bm
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_SAMPLES=OFF -DCUJIT_BUILD_BENCH=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build $B -j$(nproc) --target jitrun > /tmp/build.log 2>&1 || { grep -E 'error' -A5 /tmp/build.log | head -60; exit 1; }
t jitrun built
(cmake --build $B -j$(nproc) --target cujit_gpu_tests > /tmp/build_tests.log 2>&1; echo $? > /tmp/build_tests.rc) &
J=$B/tools/jitrun
IN=(-i 'x=rand((32768,32768)):float32' -i 'y=rand((32768,32768)):float32')
P='out = x*y + 5'
for d in 0 all; do $J --device $d "${IN[@]}" "$P" > /dev/null 2>&1; done  # caches warm
wait; t "tests built: rc $(cat /tmp/build_tests.rc)"
e2e() {  # e2e LABEL DEVICE [ARGS...]: wall seconds of one process
  local label=$1 d=$2; shift 2
  local a=$(date +%s.%N)
  $J --device $d "${IN[@]}" "$@" "$P" > /tmp/e2e.txt 2>&1 || echo "FAIL $label: $(head -3 /tmp/e2e.txt)" >> $L
  local b=$(date +%s.%N)
  echo "$label $(awk "BEGIN{print $b - $a}")" >> $OUT/e2e.txt
  rm -f /tmp/e2e_out.npy
}
for r in $(seq ${REPS:-7}); do
  e2e "summary device=0" 0; e2e "summary device=all" all; e2e "summary device=1" 1
  [ $r -le 5 ] && { e2e "npy device=0" 0 -o out=/tmp/e2e_out.npy; e2e "npy device=all" all -o out=/tmp/e2e_out.npy; }
done
t e2e done
for r in 1 2; do for d in 0 all; do
  echo "== --device $d -v (run $r)"; a=$(date +%s.%N); $J --device $d -v "${IN[@]}" "$P" 2>&1; echo "wall $(awk "BEGIN{print $(date +%s.%N) - $a}") s"
done; done > $OUT/verbose.txt
for d in 0 all; do
  echo "== --device $d -v -o"; a=$(date +%s.%N); $J --device $d -v "${IN[@]}" -o out=/tmp/e2e_out.npy "$P" 2>&1; echo "wall $(awk "BEGIN{print $(date +%s.%N) - $a}") s"; rm -f /tmp/e2e_out.npy
done >> $OUT/verbose.txt
python3 - $OUT/e2e.txt > $OUT/e2e.md <<'PY'
import sys, statistics as st, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    *k, v = line.split(); d[" ".join(k)].append(float(v))
print("| run | processes | median s | min s | max s |\n|---|---:|---:|---:|---:|")
for k, v in d.items(): print(f"| {k} | {len(v)} | {st.median(v):.3f} | {min(v):.3f} | {max(v):.3f} |")
PY
cat $OUT/e2e.md >> $L
timeout ${TEST_S:-150} $B/tests/cujit_gpu_tests "[multi_gpu],[generate],[deploy]" > $OUT/tests.log 2>&1; t "tests exit $? ($(tail -2 $OUT/tests.log | tr '\n' ' '))"
