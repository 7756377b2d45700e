#!/usr/bin/env bash
# jitrun end to end on 2^30 float32 `out = x*y + 5` with .npy inputs (two 4 GiB files in the page
# cache) and with generated inputs, --device 0 against --device all, the build before .npy inputs went
# straight to the GPUs (OLD: d54b78d, in .old/) against the working tree; -v timelines; then the GPU
# tests of what changed ([multi_gpu], [generate], [npy]) and the NumPy reduction cases ([reduction-gpu]).
# From the repository root on a machine of two GPUs: DEPS=$PWD/.devdeps bash bench/results/npy_inputs_2026-11-28/call1.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CUJIT_CACHE_DIR=/tmp/cjn
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; nproc; free -g | head -2; df -h /tmp | tail -1; } > $OUT/machine.txt 2>&1
B=/tmp/bn; O=/tmp/bo
cfg() { cmake -S $1 -B $2 -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_SAMPLES=OFF -DCUJIT_BUILD_BENCH=OFF > /tmp/cmake_$3.log 2>&1 || { tail -30 /tmp/cmake_$3.log; exit 1; }; }
cfg . $B new; cfg .old $O old
cmake --build $B -j$(nproc) --target jitrun > /tmp/build.log 2>&1 || { grep -E 'error' -A5 /tmp/build.log | head -60; exit 1; }
t new jitrun built
(cmake --build $B -j24 --target cujit_gpu_tests > /tmp/build_tests.log 2>&1; echo $? > /tmp/build_tests.rc) &
cmake --build $O -j8 --target jitrun > /tmp/build_old.log 2>&1 || { grep -E 'error' -A5 /tmp/build_old.log | head -30; exit 1; }
t old jitrun built
N=$B/tools/jitrun; OJ=$O/tools/jitrun
$N --device 0 --seed 1 -i 'x=rand((32768,32768))' -o out=/tmp/x.npy 'out = x' > /dev/null || t "FAIL making x.npy"
$N --device 0 --seed 2 -i 'x=rand((32768,32768))' -o out=/tmp/y.npy 'out = x' > /dev/null || t "FAIL making y.npy"
ls -l /tmp/x.npy /tmp/y.npy >> $L
NPY=(-i x=/tmp/x.npy -i y=/tmp/y.npy); GEN=(-i 'x=rand((32768,32768)):float32' -i 'y=rand((32768,32768)):float32')
P='out = x*y + 5'
for j in $N $OJ; do for d in 0 all; do $j --device $d "${NPY[@]}" "$P" > /dev/null 2>&1; $j --device $d "${GEN[@]}" "$P" > /dev/null 2>&1; done; done  # caches warm
wait; t "tests built: rc $(cat /tmp/build_tests.rc)"
e2e() {  # e2e LABEL JITRUN DEVICE [ARGS...]: wall seconds of one process
  local label=$1 j=$2 d=$3; shift 3
  local a=$(date +%s.%N)
  $j --device $d "$@" "$P" > /tmp/e2e.txt 2>&1 || echo "FAIL $label: $(head -3 /tmp/e2e.txt)" >> $L
  local b=$(date +%s.%N)
  echo "$label $(awk "BEGIN{print $b - $a}")" >> $OUT/e2e.txt
  rm -f /tmp/e2e_out.npy
}
for r in $(seq ${REPS:-5}); do
  for d in 0 all; do
    e2e "old npy-in summary device=$d" $OJ $d "${NPY[@]}"; e2e "new npy-in summary device=$d" $N $d "${NPY[@]}"
    e2e "old generated summary device=$d" $OJ $d "${GEN[@]}"; e2e "new generated summary device=$d" $N $d "${GEN[@]}"
    [ $r -le 3 ] && { e2e "old npy-in npy-out device=$d" $OJ $d "${NPY[@]}" -o out=/tmp/e2e_out.npy; e2e "new npy-in npy-out device=$d" $N $d "${NPY[@]}" -o out=/tmp/e2e_out.npy; }
  done
done
t e2e done
for j in $N $OJ; do for d in 0 all; do
  echo "== $j --device $d -v (npy inputs)"; a=$(date +%s.%N); $j --device $d -v "${NPY[@]}" "$P" 2>&1; echo "wall $(awk "BEGIN{print $(date +%s.%N) - $a}") s"
  echo "== $j --device $d -v (generated inputs)"; a=$(date +%s.%N); $j --device $d -v "${GEN[@]}" "$P" 2>&1; echo "wall $(awk "BEGIN{print $(date +%s.%N) - $a}") s"
done; done > $OUT/verbose.txt
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
grep -E "FAILED|failed" -A12 $OUT/tests.log | head -60 >> $L
left=$(( ${LIMIT:-575} - $(el) ))
timeout $left $B/tests/cujit_gpu_tests "[reduction-gpu]" --durations yes > $OUT/tests_reductions.log 2>&1; t "[reduction-gpu] exit $? ($(grep -E 'test cases' $OUT/tests_reductions.log | tail -1))"
grep -E "FAILED|failed" -A12 $OUT/tests_reductions.log | head -40 >> $L
