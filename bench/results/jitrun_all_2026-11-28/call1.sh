#!/usr/bin/env bash
# Call 1: where a cold `jitrun --device all` process spends its exit. Exit variants of an uncommitted
# experiment build (CUJIT_EXP_EXIT=plain|trim|quick|trimquick; CUJIT_EXP_PAR=1 trims the GPUs' pools on a
# thread each), one GPU against two, .npy and generated inputs; then the GPU tests of last session's
# review fixes and compute-sanitizer memcheck on the generator kernels.
# From the repository root on a machine of two GPUs: DEPS=$PWD/.devdeps bash bench/results/jitrun_all_2026-11-28/call1.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CUJIT_CACHE_DIR=/tmp/cjn
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; nproc; free -g | head -2; } > $OUT/machine.txt 2>&1
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
e2e() {  # e2e LABEL DEVICE EXIT PAR [ARGS...]: wall seconds of one process
  local label=$1 d=$2 x=$3 par=$4; shift 4
  local a=$(date +%s.%N)
  if [ $par = 1 ]; then CUJIT_EXP_PAR=1 CUJIT_EXP_EXIT=$x $N --device $d "$@" "$P" > /tmp/e2e.txt 2>&1 || echo "FAIL $label: $(head -3 /tmp/e2e.txt)" >> $L
  else CUJIT_EXP_EXIT=$x $N --device $d "$@" "$P" > /tmp/e2e.txt 2>&1 || echo "FAIL $label: $(head -3 /tmp/e2e.txt)" >> $L; fi
  local b=$(date +%s.%N)
  echo "$label $(awk "BEGIN{print $b - $a}")" >> $OUT/e2e.txt
}
for r in $(seq ${REPS:-5}); do
  for v in "plain 0" "trim 0" "trim 1" "quick 0" "trimquick 1"; do
    set -- $v
    for d in 0 all; do
      e2e "npy $1 par=$2 device=$d" $d $1 $2 "${NPY[@]}"; e2e "gen $1 par=$2 device=$d" $d $1 $2 "${GEN[@]}"
    done
  done
done
t e2e done
for v in "plain 0" "trim 1" "trimquick 1"; do
  set -- $v
  for d in 0 all; do
    echo "== $1 par=$2 --device $d -v (npy inputs)"; a=$(date +%s.%N); CUJIT_EXP_PAR=$2 CUJIT_EXP_EXIT=$1 $N --device $d -v "${NPY[@]}" "$P" 2>&1; echo "wall $(awk "BEGIN{print $(date +%s.%N) - $a}") s"
    echo "== $1 par=$2 --device $d -v (generated)"; a=$(date +%s.%N); CUJIT_EXP_PAR=$2 CUJIT_EXP_EXIT=$1 $N --device $d -v "${GEN[@]}" "$P" 2>&1; echo "wall $(awk "BEGIN{print $(date +%s.%N) - $a}") s"
  done
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
rm -f /tmp/x.npy /tmp/y.npy
timeout 120 $B/tests/cujit_gpu_tests "[multi_gpu],[npy]" > $OUT/tests.log 2>&1; t "tests exit $? ($(tail -2 $OUT/tests.log | tr '\n' ' '))"
grep -a -E "FAILED|failed" -A12 $OUT/tests.log | head -60 >> $L
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
timeout 150 $CS --tool memcheck --error-exitcode 9 $B/tests/cujit_gpu_tests "[generate]" > $OUT/memcheck_generate.log 2>&1; t "memcheck [generate] exit $? ($(tail -3 $OUT/memcheck_generate.log | tr '\n' ' '))"
