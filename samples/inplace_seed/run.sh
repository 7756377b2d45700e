#!/usr/bin/env bash
# The seed documents' example, `x *= 5; x *= x; x += x` on an input x updated
# in place, through jitrun on the GPU on 10^9 float64 elements (8 GB), checked
# element by element against NumPy's in-place ufuncs on the same input.
#
#   samples/inplace_seed/run.sh JITRUN [N]        # N: 1000000000 by default
#
# Needs a GPU (else exit 77: CTest reports it skipped), python3 with NumPy,
# and 2 x 8 N bytes of disk under $TMPDIR (the input and the result as .npy).
# CUJIT_SEED_DEVICE=cpu runs jitrun on the CPU evaluator instead (a quick check
# of the script itself on a machine with no GPU, with a small N).
set -euo pipefail
JITRUN="$1"
N="${2:-1000000000}"
DEVICE="${CUJIT_SEED_DEVICE:-0}"
if ! python3 -c 'import numpy' 2>/dev/null; then
  # tools/deps.sh installs NumPy: in CI its absence is a failure, not a skip.
  [ "${CI:-}" = true ] && { echo "inplace_seed: python3 with NumPy is missing (apt-get install python3-numpy)"; exit 1; }
  echo "inplace_seed: skipped: python3 with NumPy is needed (apt-get install python3-numpy)"
  exit 77
fi
# Only a machine without a GPU (no driver, no device) skips; any other failure
# of the device is this test's failure.
if [ "$DEVICE" != cpu ] && ! probe=$("$JITRUN" --device "$DEVICE" -i x=1.0 'out = x' 2>&1); then
  if [[ "$probe" == *"no CUDA device"* || "$probe" == *"no CUDA driver"* ]]; then
    echo "inplace_seed: skipped: no GPU here ($probe)"
    exit 77
  fi
  echo "inplace_seed: jitrun fails on device $DEVICE: $probe"
  exit 1
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cujit_inplace_seed.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# The input: NumPy's random values in [-1, 1), written in slices so that the
# generator needs little memory.
python3 - "$TMP/x.npy" "$N" <<'PY'
import sys
import numpy as np
path, n = sys.argv[1], int(sys.argv[2])
x = np.lib.format.open_memmap(path, mode="w+", dtype=np.float64, shape=(n,))
rng = np.random.default_rng(20261123)
step = 1 << 26
for a in range(0, n, step):
    b = min(n, a + step)
    x[a:b] = rng.random(b - a) * 2 - 1
x.flush()
PY

# jitrun updates its copy of x in place on the device and writes it out.
start=$(date +%s.%N)
"$JITRUN" --device "$DEVICE" -v -i "x=$TMP/x.npy" -o "x=$TMP/out.npy" 'x *= 5; x *= x; x += x'
end=$(date +%s.%N)
echo "inplace_seed: jitrun took $(python3 -c "print(f'{$end - $start:.1f}')") s for $N float64 elements (reading and writing the .npy files included)"

# NumPy's sequence of in-place ufuncs on the same input, slice by slice; every
# element must be identical (float64 * and + are exactly rounded on both sides).
python3 - "$TMP/x.npy" "$TMP/out.npy" <<'PY'
import sys
import numpy as np
x = np.load(sys.argv[1], mmap_mode="r")
got = np.load(sys.argv[2], mmap_mode="r")
assert got.dtype == np.float64 and got.shape == x.shape, (got.dtype, got.shape)
step = 1 << 26
wrong = 0
first = None
for a in range(0, x.shape[0], step):
    b = min(x.shape[0], a + step)
    want = np.array(x[a:b])
    want *= 5
    want *= want
    want += want
    bad = np.flatnonzero(want.view(np.int64) != np.asarray(got[a:b]).view(np.int64))
    if bad.size and first is None:
        k = int(bad[0])
        first = (a + k, float(x[a + k]), float(got[a + k]), float(want[k]))
    wrong += int(bad.size)
if wrong:
    print("inplace_seed: %d of %d elements differ from NumPy; first at %d: x=%r cujit=%r numpy=%r"
          % ((wrong, x.shape[0]) + first))
    sys.exit(1)
print("inplace_seed: all %d elements equal NumPy's x *= 5; x *= x; x += x" % x.shape[0])
PY
