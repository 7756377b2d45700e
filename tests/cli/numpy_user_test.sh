#!/usr/bin/env bash
# What a NumPy user types at jitrun (issue 22): NumPy's dtype spellings for -t
# and :DTYPE, a .npy input cast with NumPy's same_kind rule, a shape written
# NumPy's way, two -o naming one file, and diagnostics on the right line.
# Usage: numpy_user_test.sh path/to/jitrun
set -u
JITRUN="$1"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cd "$TMP" || exit 1
fails=0

# expect CODE EXPECTED_OUTPUT_SUBSTRING -- ARGS...
expect() {
  local code="$1" want="$2"
  shift 3
  local out rc
  out=$("$JITRUN" --device cpu "$@" 2>&1)
  rc=$?
  if [ "$rc" != "$code" ] || [[ "$out" != *"$want"* ]]; then
    echo "FAIL: jitrun $* -> exit $rc (want $code)"
    echo "  output: $out"
    echo "  wanted: $want"
    fails=$((fails + 1))
  fi
}

LIST="the dtypes are bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, bfloat16, float32, float64, complex64, complex128 (NumPy's spellings work too: f4, <f8, i8, u1, c16, float, double, np.float32)"

# -t and generator :DTYPE in NumPy's spellings; `float` is NumPy's float64.
expect 0 "out: float64 (3,)" -- -t out=float -i 'x=arange(3)' 'out = x * 1.5'
expect 0 "out: float32 (3,)" -- -t out=f4 -i 'x=arange(3):f8' 'out = x * 1.5'
expect 0 "out: float32 (3,)" -- -t out='<f4' -i 'x=arange(3):double' 'out = x'
expect 0 "out: int16 (3,)" -- -t out=np.int16 -i 'x=arange(3)' 'out = x'
expect 0 "out: uint8 (3,)" -- -i 'x=arange(3):u1' 'out = x'
expect 0 "out: complex128 (3,)" -- -i 'x=arange(3):c16' 'out = x'
expect 0 "out: int64 (3,)" -- -i 'x=arange(3):i8' 'out = x'
expect 0 "out: bool (3,)" -- -i 'x=arange(3):bool' 'out = x'
expect 1 "jitrun: -t out: unknown dtype 'flot32' (did you mean 'float32'?); $LIST" -- -t out=flot32 -i 'x=arange(3)' 'out = x'
expect 1 "jitrun: -i x=arange(3):f: unknown dtype 'f': NumPy's one-letter codes are not taken" -- -i 'x=arange(3):f' 'out = x'
expect 1 "jitrun: -t out: '>f4' is big-endian: cujit arrays are little-endian, write '<f4'" -- -t out='>f4' -i 'x=arange(3)' 'out = x'

# FILE.npy:DTYPE casts as NumPy's astype(DTYPE, casting='same_kind') does.
expect 0 "" -- -i 'x=arange(4):float64' -o s=s.npy 's = x * 1.5'
expect 0 "o = [0.  1.5 3.  4.5]" -- --print -i s=s.npy:float32 'o = s'
expect 0 "o: float32 (4,)" -- -i s=s.npy:f4 'o = s'
expect 0 "o: complex64 (4,)" -- -i s=s.npy:c8 'o = s'
expect 0 "o: float64 (4,)" -- -i s=s.npy:float64 'o = s'
expect 1 "jitrun: -i s=s.npy:int32: the file holds float64, and float64 -> int32 is not a same_kind cast (NumPy's astype refuses it too); load it as float64 and cast in the program: int32(s)" -- -i s=s.npy:int32 'o = s'
expect 0 "" -- -i 'x=arange(4):uint8' -o u=u.npy 'u = x'
expect 0 "o = [0 1 2 3]" -- --print -i u=u.npy:int8 'o = u'
expect 1 "uint8 -> bool is not a same_kind cast" -- -i u=u.npy:bool 'o = u'
expect 3 "missing.npy" -- -i m=missing.npy:float32 'o = m'

# A shape written as NumPy's arguments gets the spelling jitrun takes.
expect 1 "jitrun: -i x=zeros(3,4): zeros takes 1 argument, the shape: write zeros(3x4) or zeros((3, 4))" -- -i 'x=zeros(3,4)' 'o = x'
expect 1 "rand takes 1 argument, the shape: write rand(2x3x4) or rand((2, 3, 4))" -- -i 'x=rand(2, 3, 4)' 'o = x'
expect 0 "o: float32 (3, 4)" -- -i 'x=zeros(3x4)' 'o = x'
# ... and a dtype given as NumPy's second argument goes after a colon.
expect 1 "jitrun: -i x=zeros(1000,float16): zeros takes 1 argument, the shape; a dtype goes after a colon: write zeros(1000):float16" -- -i 'x=zeros(1000,float16)' 'o = x'
expect 1 "write rand((2, 3)):f4" -- -i "x=rand((2, 3), dtype='f4')" 'o = x'
expect 1 "write ones(5):int8" -- -i 'x=ones(5, dtype=np.int8)' 'o = x'
expect 1 "zeros takes 1 argument, the shape: write zeros(5xfloat32x2)" -- -i 'x=zeros(5, float32, 2)' 'o = x'

# Two -o for one file: one output would silently overwrite the other.
expect 1 "jitrun: -o o=a.npy and -o p=./a.npy name one file, so one output would overwrite the other; give each its own path" -- -i 'x=ones(3)' -o o=a.npy -o p=./a.npy 'o = x; p = x * 2'
mkdir -p sub && ln -sf sub link
expect 1 "name one file" -- -i 'x=ones(3)' -o o=sub/a.npy -o p=link/a.npy 'o = x; p = x * 2'
expect 1 "jitrun: -o o is given twice; give each output one path" -- -i 'x=ones(3)' -o o=a.npy -o o=b.npy 'o = x'
expect 0 "" -- -i 'x=ones(3)' -o o=a.npy -o p=b.npy 'o = x; p = x * 2'

# The multi-line program: the diagnostic names line 1 and shows it.
expect 2 "error: unknown type 'Q' (line 1)
  Q d = x
  ^" -- -i 'x=ones(3)' $'Q d = x\nz = d * 2\nw = z'

if [ "$fails" != 0 ]; then
  echo "$fails NumPy-user check(s) failed"
  exit 1
fi
echo "all NumPy-user checks passed"
