#!/usr/bin/env bash
# Call 5: call 2 again at the defaults chosen from calls 3 and 4 (4 MiB chunks, up to four readers per GPU).
# -v timelines; the GPU tests of what changed.
# From the repository root on a machine of two GPUs: DEPS=$PWD/.devdeps bash bench/results/npy_inputs_2026-11-28/call5.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CUJIT_CACHE_DIR=/tmp/cjn
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; nproc; free -g | head -2; df -h /tmp | tail -1; } > $OUT/machine.txt 2>&1
B=/tmp/bn
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_SAMPLES=OFF -DCUJIT_BUILD_BENCH=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build $B -j$(nproc) --target jitrun > /tmp/build.log 2>&1 || { grep -E 'error' -A5 /tmp/build.log | head -60; exit 1; }
t jitrun built
(cmake --build $B -j24 --target cujit_gpu_tests > /tmp/build_tests.log 2>&1; echo $? > /tmp/build_tests.rc) &
N=$B/tools/jitrun
$N --device 0 --seed 1 -i 'x=rand((32768,32768))' -o out=/tmp/x.npy 'out = x' > /dev/null || t "FAIL making x.npy"
$N --device 0 --seed 2 -i 'x=rand((32768,32768))' -o out=/tmp/y.npy 'out = x' > /dev/null || t "FAIL making y.npy"
NPY=(-i x=/tmp/x.npy -i y=/tmp/y.npy); GEN=(-i 'x=rand((32768,32768)):float32' -i 'y=rand((32768,32768)):float32')
P='out = x*y + 5'
for d in 0 all; do $N --device $d "${NPY[@]}" "$P" > /dev/null 2>&1; $N --device $d "${GEN[@]}" "$P" > /dev/null 2>&1; done  # caches warm
wait; t "tests built: rc $(cat /tmp/build_tests.rc)"
e2e() {  # e2e LABEL DEVICE [ARGS...]: wall seconds of one process
  local label=$1 d=$2; shift 2
  local a=$(date +%s.%N)
  $N --device $d "$@" "$P" > /tmp/e2e.txt 2>&1 || echo "FAIL $label: $(head -3 /tmp/e2e.txt)" >> $L
  local b=$(date +%s.%N)
  echo "$label $(awk "BEGIN{print $b - $a}")" >> $OUT/e2e.txt
  rm -f /tmp/e2e_out.npy
}
for r in $(seq ${REPS:-5}); do
  for d in 0 all; do
    e2e "npy-in summary device=$d" $d "${NPY[@]}"; e2e "generated summary device=$d" $d "${GEN[@]}"
    [ $r -le 3 ] && e2e "npy-in npy-out device=$d" $d "${NPY[@]}" -o out=/tmp/e2e_out.npy
  done
done
t e2e done
for d in 0 all; do
  echo "== --device $d -v (npy inputs)"; a=$(date +%s.%N); $N --device $d -v "${NPY[@]}" "$P" 2>&1; echo "wall $(awk "BEGIN{print $(date +%s.%N) - $a}") s"
  echo "== --device $d -v (npy inputs, -o)"; a=$(date +%s.%N); $N --device $d -v "${NPY[@]}" -o out=/tmp/e2e_out.npy "$P" 2>&1; echo "wall $(awk "BEGIN{print $(date +%s.%N) - $a}") s"; rm -f /tmp/e2e_out.npy
done > $OUT/verbose.txt
python3 - $OUT/e2e.txt > $OUT/e2e.md <<'PY'
import sys, statistics as st, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    *k, v = line.split(); d[" ".join(k)].append(float(v))
print("| run | processes | median s | min s | max s |\n|---|---:|---:|---:|---:|")
for k, v in sorted(d.items()): print(f"| {k} | {len(v)} | {st.median(v):.3f} | {min(v):.3f} | {max(v):.3f} |")
PY
cat $OUT/e2e.md >> $L
timeout 150 $B/tests/cujit_gpu_tests "[multi_gpu],[generate],[npy]" > $OUT/tests.log 2>&1; t "tests exit $? ($(tail -2 $OUT/tests.log | tr '\n' ' '))"
grep -a -E "FAILED|failed" -A12 $OUT/tests.log | head -60 >> $L
