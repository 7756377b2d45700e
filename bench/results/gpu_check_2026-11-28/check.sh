#!/usr/bin/env bash
# The programs whose checking changed on 2026-11-28 (mixed-sign float functions, clip's out-of-range
# Python int bounds, logical functions of big Python ints, float -> int64/int32 sums), run on the GPU
# and on the CPU evaluator on the same .npy inputs: the outputs must have the same dtype and values
# (exact, or within 4 ulp for the transcendental ones). Run from the repository root on a GPU
# machine: DEPS=$PWD/.devdeps bash bench/results/gpu_check_2026-11-28/check.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjc
S=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; git log --oneline -1 2>/dev/null || true
B=${BUILD:-/tmp/bj}
[ -n "${BUILD:-}" ] || cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_TESTS=OFF -DCUJIT_BUILD_BENCH=OFF \
  -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
[ -n "${BUILD:-}" ] || cmake --build $B -j16 --target jitrun > /tmp/build.log 2>&1 || { grep -E 'error' -A5 /tmp/build.log | head -40; exit 1; }
echo "[$(( $(date +%s) - S ))s] build ok"
T=/tmp/cc; mkdir -p $T
python3 - $T <<'PY'
import sys, numpy as np
t = sys.argv[1]; r = np.random.default_rng(7)
for dt in ["uint8", "int8", "uint16", "int16", "uint32", "int32"]:
    info = np.iinfo(dt)
    np.save(f"{t}/{dt}.npy", np.concatenate([[info.min, info.max, 0], r.integers(max(info.min, -100), min(info.max, 100), 4093)]).astype(dt))
np.save(f"{t}/f32.npy", (r.standard_normal(4096) * 3).astype(np.float32))
np.save(f"{t}/f64.npy", (r.standard_normal((64, 64)) * 3))
PY
J=$B/tools/jitrun; fails=0
check() {  # check NAME INPUTS... -- PROGRAM
  local name=$1; shift; local ins=(); while [ "$1" != -- ]; do ins+=(-i "$1"); shift; done; shift
  $J --device "${GPUDEV:-0}" "${ins[@]}" -o out=$T/g.npy "$1" > $T/g.txt 2>&1 || { echo "FAIL $name: GPU: $(head -2 $T/g.txt)"; fails=$((fails+1)); return; }
  $J --device cpu "${ins[@]}" -o out=$T/c.npy "$1" > $T/c.txt 2>&1 || { echo "FAIL $name: CPU: $(head -2 $T/c.txt)"; fails=$((fails+1)); return; }
  python3 -c "
import numpy as np, sys
g, c = np.load('$T/g.npy'), np.load('$T/c.npy')
assert g.dtype == c.dtype and g.shape == c.shape, (g.dtype, c.dtype)
if g.dtype.kind == 'f':
    ok = np.isclose(g.astype(np.float64), c.astype(np.float64), rtol=4 * np.finfo(g.dtype).eps, atol=0, equal_nan=True)
else:
    ok = g == c
assert ok.all(), (np.flatnonzero(~ok)[:3], g[~ok][:3], c[~ok][:3])
print('ok  $name', g.dtype, g.shape)" || { echo "FAIL $name"; fails=$((fails+1)); }
}
check atan2_u8_i8 x=$T/uint8.npy y=$T/int8.npy -- 'out = arctan2(x, y)'
check hypot_u16_i16 x=$T/uint16.npy y=$T/int16.npy -- 'out = hypot(x, y)'
check copysign_i8_u16 x=$T/int8.npy y=$T/uint16.npy -- 'out = copysign(x, y)'
check clip_u8_lo x=$T/uint8.npy -- 'out = clip(x, -3, 7)'
check clip_i16_hi x=$T/int16.npy -- 'out = clip(x, 5, 40000)'
check clip_u32_both x=$T/uint32.npy -- 'out = clip(x, -1, 5000000000)'
check logical_u8 x=$T/uint8.npy -- 'out = logical_or(x, 256) ^ (x && -7)'
check sum_f32_i64 x=$T/f32.npy -- 'out = sum(x, dtype=int64)'
check sum_f64_i32_axis x=$T/f64.npy -- 'out = sum(x*3, axis=0, dtype=int32)'
check prod_f64_i64 x=$T/f64.npy -- 'out = prod(clip(x, -2, 2), axis=1, dtype=int64)'
echo "[$(( $(date +%s) - S ))s] $fails failures"
