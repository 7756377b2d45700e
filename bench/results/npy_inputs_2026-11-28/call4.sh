#!/usr/bin/env bash
# Call 4: jitrun end to end on npy inputs with 2 and 4 readers per GPU and 4 or 16 MiB chunks
# (CUJIT_NPY_READERS, CUJIT_NPY_CHUNK_MIB: less pinned memory a reader), --device 0 and all,
# interleaved, with -v's phases. From the repository root on a machine of two GPUs:
#   DEPS=$PWD/.devdeps bash bench/results/npy_inputs_2026-11-28/call4.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CUJIT_CACHE_DIR=/tmp/cjn
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; nproc; } > $OUT/machine.txt 2>&1
B=/tmp/bn
[ -x $B/tools/jitrun ] || cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_SAMPLES=OFF -DCUJIT_BUILD_BENCH=OFF > /tmp/cmake.log 2>&1
cmake --build $B -j$(nproc) --target jitrun > /tmp/build.log 2>&1 || { grep -E 'error' -A5 /tmp/build.log | head -60; exit 1; }
t jitrun built
N=$B/tools/jitrun
[ -f /tmp/x.npy ] || $N --device 0 --seed 1 -i 'x=rand((32768,32768))' -o out=/tmp/x.npy 'out = x' > /dev/null
[ -f /tmp/y.npy ] || $N --device 0 --seed 2 -i 'x=rand((32768,32768))' -o out=/tmp/y.npy 'out = x' > /dev/null
NPY=(-i x=/tmp/x.npy -i y=/tmp/y.npy); P='out = x*y + 5'
for d in 0 all; do $N --device $d "${NPY[@]}" "$P" > /dev/null 2>&1; done
for r in 1 2 3 4 5; do for c in 4 16; do for k in 2 4; do for d in 0 all; do
  a=$(date +%s.%N); CUJIT_NPY_CHUNK_MIB=$c CUJIT_NPY_READERS=$k $N --device $d -v "${NPY[@]}" "$P" > /tmp/v.txt 2>&1 || echo "FAIL chunk=$c readers=$k device=$d" >> $L
  b=$(date +%s.%N)
  m=$(grep -E "devices known|inputs made" /tmp/v.txt | sed -E 's/.*at ([0-9.]+) ms.*/\1/' | tr '\n' ' ')
  echo "chunk_MiB=$c readers=$k device=$d $(awk "BEGIN{print $b - $a}") $m" >> $OUT/chunks.txt
done; done; done; done
python3 - $OUT/chunks.txt > $OUT/chunks.md <<'PY'
import sys, statistics as st, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    c, k, dev, wall, known, made = line.split()
    d[(c, k, dev)].append((float(wall), float(made) - float(known)))
print("| chunk MiB | readers per GPU | device | processes | median wall s | median inputs ms (devices known to inputs made) |\n|---|---|---|---:|---:|---:|")
for (c, k, dev), v in sorted(d.items(), key=lambda e: (int(e[0][0].split('=')[1]), e[0][1], e[0][2])):
    print(f"| {c.split('=')[1]} | {k.split('=')[1]} | {dev.split('=')[1]} | {len(v)} | {st.median([a for a, _ in v]):.3f} | {st.median([b for _, b in v]):.1f} |")
PY
cat $OUT/chunks.md >> $L
t done
