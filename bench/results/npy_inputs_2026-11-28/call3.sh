#!/usr/bin/env bash
# Call 3: where reading .npy inputs tops out. The files' pages in the page cache (/proc/meminfo);
# dd of a 4 GiB file to /dev/null from 1, 2, 4 and 8 processes at once (each its own quarter/eighth);
# then jitrun end to end on npy inputs with CUJIT_NPY_READERS = 1, 2, 4 readers per GPU, --device 0
# and all, interleaved, with -v's "inputs made" phase of each.
# From the repository root on a machine of two GPUs: DEPS=$PWD/.devdeps bash bench/results/npy_inputs_2026-11-28/call3.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CUJIT_CACHE_DIR=/tmp/cjn
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; nproc; lscpu | grep -E "Model name|NUMA node"; } > $OUT/machine.txt 2>&1
B=/tmp/bn
if [ ! -x $B/tools/jitrun ]; then
  cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_SAMPLES=OFF -DCUJIT_BUILD_BENCH=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
fi
cmake --build $B -j$(nproc) --target jitrun > /tmp/build.log 2>&1 || { grep -E 'error' -A5 /tmp/build.log | head -60; exit 1; }
t jitrun built
N=$B/tools/jitrun
[ -f /tmp/x.npy ] || $N --device 0 --seed 1 -i 'x=rand((32768,32768))' -o out=/tmp/x.npy 'out = x' > /dev/null
[ -f /tmp/y.npy ] || $N --device 0 --seed 2 -i 'x=rand((32768,32768))' -o out=/tmp/y.npy 'out = x' > /dev/null
grep -E "^(MemTotal|Cached|Dirty)" /proc/meminfo > $OUT/meminfo.txt
R=$OUT/dd.txt
cat /tmp/x.npy > /dev/null  # warm
for p in 1 2 4 8; do for rep in 1 2 3; do
  a=$(date +%s.%N); per=$(( 4096 / p ))
  for k in $(seq 0 $(( p - 1 ))); do dd if=/tmp/x.npy of=/dev/null bs=16M skip=$(( k * per / 16 )) count=$(( per / 16 )) status=none & done; wait
  b=$(date +%s.%N); echo "dd 4 GiB from $p processes: $(awk "BEGIN{printf \"%.3f s, %.2f GB/s\", $b - $a, 4.294967296 / ($b - $a)}")" >> $R
done; done
cat $R >> $L
NPY=(-i x=/tmp/x.npy -i y=/tmp/y.npy); P='out = x*y + 5'
for d in 0 all; do $N --device $d "${NPY[@]}" "$P" > /dev/null 2>&1; done
for r in 1 2 3 4 5; do for k in 1 2 4; do for d in 0 all; do
  a=$(date +%s.%N); CUJIT_NPY_READERS=$k $N --device $d -v "${NPY[@]}" "$P" > /tmp/v.txt 2>&1 || echo "FAIL readers=$k device=$d" >> $L
  b=$(date +%s.%N)
  m=$(grep -E "devices known|inputs made" /tmp/v.txt | sed -E 's/.*at ([0-9.]+) ms.*/\1/' | tr '\n' ' ')
  echo "readers=$k device=$d $(awk "BEGIN{print $b - $a}") $m" >> $OUT/readers.txt
done; done; done
python3 - $OUT/readers.txt > $OUT/readers.md <<'PY'
import sys, statistics as st, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    k1, k2, wall, known, made = line.split()
    d[(k1, k2)].append((float(wall), float(made) - float(known)))
print("| readers per GPU | device | processes | median wall s | median inputs ms (devices known to inputs made) | 8 GiB at GB/s |\n|---|---|---:|---:|---:|---:|")
for (k1, k2), v in sorted(d.items()):
    w = st.median([a for a, _ in v]); i = st.median([b for _, b in v])
    print(f"| {k1.split('=')[1]} | {k2.split('=')[1]} | {len(v)} | {w:.3f} | {i:.1f} | {8.589934592 / (i / 1000):.2f} |")
PY
cat $OUT/readers.md >> $L
t done
