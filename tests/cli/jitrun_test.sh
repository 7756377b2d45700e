#!/usr/bin/env bash
# jitrun end to end: outputs, .npy round trips, exit codes and error texts.
# Usage: jitrun_test.sh path/to/jitrun
set -u
JITRUN="$1"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0

# expect CODE EXPECTED_OUTPUT_SUBSTRING -- ARGS...
expect() {
  local code="$1" want="$2"
  shift 3
  local out rc
  out=$("$JITRUN" "$@" 2>&1)
  rc=$?
  if [ "$rc" != "$code" ] || [[ "$out" != *"$want"* ]]; then
    echo "FAIL: jitrun $* -> exit $rc (want $code)"
    echo "  output: $out"
    echo "  wanted: $want"
    fails=$((fails + 1))
  fi
}

expect 0 "out = [ 0.  5. 10. 15.]" -- --print -i 'x=arange(4)' 'out = x*5'
expect 0 "z = [   0  100  -56   44 -112]" -- --print -i 'k=arange(5):int8' 'z = k * 100'
expect 0 "out: float32 (1000000,)" -- -i 'x=rand(1e6)' 'out = sin(x)*5'
expect 0 "out = [[ 0.  1.  2.  3.]" -- --print -i 'x=arange(3x1)' -i 'y=arange(4)' 'out = x * 10 + y'
# Generators: NumPy shape tuples; rand and randn are Philox4x32-10 streams
# (src/gpu/generate.hpp), the same for a seed on every machine and device.
expect 0 "out: float32 (2, 3, 4)  min: 2  max: 2" -- --device cpu -i 'x=ones((2, 3, 4))' 'out = x*2'
expect 0 "out = [7 7 7 7 7]" -- --device cpu --print -i 'x=full((5,),7):int8' 'out = x'
# The host pool's settings (a 40 MB output comes from it): a bad value is
# warned about and the run goes on with the default.
CUJIT_HOST_POOL_KEEP=lots expect 0 "ignoring CUJIT_HOST_POOL_KEEP=lots (expected a number of bytes" -- --device cpu -i 'x=ones(1e7)' 'out = x*2'
CUJIT_HOST_POOL=maybe expect 0 "out: float32 (10000000,)  min: 2  max: 2" -- --device cpu -i 'x=ones(1e7)' 'out = x*2'
CUJIT_HOST_POOL=0 expect 0 "out: float32 (10000000,)  min: 3  max: 3" -- --device cpu -i 'x=ones(1e7)' 'out = x*3'
expect 1 "-i x=ones((2,x)): 'x' is not a number" -- --device cpu -i 'x=ones((2,x))' 'out = x'
expect 0 "out = [0.75015222 0.79528404 0.00845311]" -- --device cpu --print --seed 7 -i 'x=rand(3):float64' 'out = x'
expect 0 "out = [  45 -101  -64   22]" -- --device cpu --print --seed 7 -i 'x=rand(4):int8' 'out = x'
expect 0 "o = 24.5" -- --print -i a=3.5 -i b=7 'o = a*b'
expect 0 "o = [2 3 4]" -- --print -i 'k=arange(3):int8' -i a=2 'o = k + a'
expect 0 "out = [3. 2. 1. 0.]" -- --print -i 'x=arange(4)' 'out = x[n - 1 - i]'
expect 0 "out = [1 1 1]" -- --print -t out=int16 -i 'x=full(3,1.9)' 'out = x'
expect 0 "o = 0.5" -- --print 'o = 2**-1'
# .npy out and back in
expect 0 "" -- -i 'x=linspace(0,1,5):float64' -o out="$TMP/o.npy" 'out = x*2'
expect 0 "out = [0.  0.5 1.  1.5 2. ]" -- --print -i x="$TMP/o.npy" 'out = x'
# exit codes: 1 usage, 2 program, 3 data
expect 1 "expects NAME=VALUE" -- -i x 'out = x'
expect 1 "unknown generator 'rnd'" -- -i 'x=rnd(3)' 'out = x'
expect 1 "has no output 'foo'" -- -i 'x=rand(3)' -o foo="$TMP/f.npy" 'out = x'
expect 1 "--device must be" -- --device tpu -i 'x=rand(3)' 'out = x'
expect 4 "" -- --device 99 -i 'x=rand(3)' 'out = x'
expect 0 "out = [ 0.  5. 10. 15.]" -- --device cpu --print -i 'x=arange(4)' 'out = x*5'
expect 2 "hint: did you mean 'sin'?" -- -i 'x=rand(3)' 'out = sinn(x)*5'
expect 2 "error: chained comparison" -- -i 'x=rand(3)' 'out = 0 < x < 1'
expect 2 "error: integer 300 does not fit in int8" -- -i 'k=arange(3):int8' 'out = k + 300'
# `//` after an operand is never a silent comment (it would compute `out = x`); after ';' it is one
expect 2 "hint: floor division is floor_divide(x, 2); to comment, end the statement with ';' first" -- -i 'x=arange(4)' 'out = x // 2'
expect 0 "out = [0. 0. 1. 1.]" -- --print -i 'x=arange(4)' 'out = floor_divide(x, 2); // halves'
expect 2 "hint: NumPy's elementwise minimum is minimum(x, 2) (NaN propagates) or fmin(x, 2) (NaN is ignored)" -- -i 'x=arange(4)' 'out = min(x, 2)'
expect 3 "cannot open" -- -i x="$TMP/missing.npy" 'out = x'
printf 'not numpy' > "$TMP/bad.npy"
expect 3 "bad.npy" -- -i x="$TMP/bad.npy" 'out = x'
expect 3 "do not broadcast" -- -i 'x=rand(3)' -i 'y=rand(4)' 'out = x + y'
expect 3 "out of bounds" -- -i 'x=rand(3)' 'out = x[i + 1]'
expect 0 "out = [0. 1.]" -- --print --shape 2 -i 'x=arange(3)' 'out = x[i]'
expect 1 "--shape 2y" -- --shape 2y -i 'x=arange(3)' 'out = x[i]'
expect 3 "" -- -i 'x=rand(3)' -o out=/nonexistent/dir/o.npy 'out = x'

# --emit needs no GPU: source, PTX (NVRTC runs for real) and a cubin file
expect 0 "out = sin(x)*5" -- --emit source -i 'x=rand(1000)' 'out = sin(x)*5'
expect 0 "extern \"C\" __global__ void jitrun(" -- --emit source -i 'x=rand(1000)' 'out = sin(x)*5'
expect 0 ".target sm_80" -- --emit ptx --arch sm_80 -i 'x=rand(10):float16' 'out = x * 2'
expect 0 "cubin to $TMP/k.cubin" -- --emit cubin -o "$TMP/k.cubin" -i 'x=rand(10)' 'out = x * 2'
[ -s "$TMP/k.cubin" ] || { echo "FAIL: no cubin written"; fails=$((fails + 1)); }
expect 1 "give its path with -o PATH" -- --emit cubin -i 'x=rand(10)' 'out = x * 2'
expect 1 "--emit" -- --emit llvm -i 'x=rand(10)' 'out = x * 2'
expect 1 "--arch smXX" -- --emit ptx --arch smXX -i 'x=rand(10)' 'out = x * 2'
# A parameter the program does not read still has its type in the kernel's signature (the complex and
# float16 headers were left out: "namespace cj has no member c128", exit 5).
expect 0 ".entry jitrun(" -- --emit ptx --arch sm_80 -i 'x=rand(10)' -i 'y=rand(10):complex128' 'out = x * 2'
expect 0 ".entry jitrun(" -- --emit ptx --arch sm_80 -i 'x=rand(10)' -i 'y=rand(10):float16' -i 'z=rand(10):complex64' 'out = x'

# The CPU's math library: SLEEF's vector functions or the C library, both
# within the accuracy contract; CUJIT_CPU_MATH picks the C library or is an error.
expect 0 "math: " -- --device cpu -v -i 'x=rand(100)' 'out = tanh(x)'
CUJIT_CPU_MATH=libm expect 0 "math: the C library (CUJIT_CPU_MATH=libm)" -- --device cpu -v -i 'x=rand(100)' 'out = tanh(x)'
CUJIT_CPU_MATH=fast expect 1 "CUJIT_CPU_MATH is 'fast': it must be 'auto'" -- --device cpu -i 'x=rand(100)' 'out = tanh(x)'
expect 0 "out = [ 0.        2.       10.828427 32.19615 ]" -- --device cpu --print -i 'x=arange(4):float32' 'out = x**1.5 + x**3'

# Reductions (CPU evaluator): a scalar prints its value, reduced arrays and outputs of
# different shapes print as arrays; axes out of range are program errors, empty
# minima NumPy's data error.
expect 0 "out: float64 () = 6.0" -- --device cpu -i 'x=arange(4):float64' 'out = sum(x)'
expect 0 "out = [12. 15. 18. 21.]" -- --device cpu --print -i 'x=arange(3x4)' 'out = sum(x, axis=0)'
expect 0 "pass 2: elementwise (4,): out" -- --device cpu -v -i 'x=arange(3x4)' 'out = sum(x, axis=0)'
expect 0 "a = 11" -- --device cpu --print -i 'x=arange(3x4)' 'out = sum(x, axis=0); a = argmax(x)'
expect 0 "out = [0.  0.1 0.2 0.3 0.4]" -- --device cpu --print -i 'x=arange(5)' 'out = x / sum(x)'
expect 0 "z = [[-1.3416407 -0.4472136  0.4472136  1.3416407]" -- --device cpu --print -i 'x=arange(3x4)' 'z = (x - mean(x, axis=1, keepdims=True)) / std(x, axis=1, keepdims=True)'
expect 2 "error: axis 1 is out of bounds for array of dimension 1" -- --device cpu -i 'x=arange(5)' 'out = sum(x, axis=1)'
expect 2 "hint: it takes axis=, keepdims=, dtype=" -- --device cpu -i 'x=arange(5)' 'out = sum(x, out=x)'
expect 3 "zero-size array to reduction operation maximum which has no identity" -- --device cpu -i 'x=arange(0)' 'out = max(x)'

# --emit on a program with reductions: every kernel of the plan, in the order
# a GPU runs them, each headed by its pass as -v prints the plan (no GPU needed).
P='m = max(x, axis=(0, 2)); out = x / sum(x*y)'
expect 0 "// cujit: \`$P\` runs 4 kernels on a GPU, in this order (jitrun -v prints the plan):" -- --emit source -i 'x=rand(8x30x40)' -i 'y=rand(8x30x40)' "$P"
expect 0 "// ---- kernel 2 of 4: pass 1: max(x, axis=(0, 2)): x over axes (0, 2) of (8, 30, 40) -> float32 (30,)
// reduction, cj_reduce_group (group t256 v4x4 g32 vector loads)
// reads map of pass 1 (temporary); writes output m" -- --emit source -i 'x=rand(8x30x40)' -i 'y=rand(8x30x40)' "$P"
expect 0 "//   pass 3: elementwise (30,): m (reads pass 1)  [no kernel of its own: the reduction it reads writes its output]" -- --emit source -i 'x=rand(8x30x40)' -i 'y=rand(8x30x40)' "$P"
expect 0 "extern \"C\" __global__ void jitrun(" -- --emit source -i 'x=rand(8x30x40)' -i 'y=rand(8x30x40)' "$P"
expect 0 "copy, layout r.i32.v4.d3|o:s|i:s" -- --emit ptx --arch sm_80 -i 'x=rand(8x30x40)' -i 'y=rand(8x30x40)' "$P"
expect 0 ".entry cj_reduce_rows(" -- --emit ptx --arch sm_80 -i 'x=rand(8x30x40)' -i 'y=rand(8x30x40)' "$P"
# -v prints the same passes as the headers name.
out=$("$JITRUN" --emit source -v -i 'x=rand(8x30x40)' -i 'y=rand(8x30x40)' "$P" 2>&1 >/dev/null)
for line in "pass 1: max(x, axis=(0, 2)): x over axes (0, 2) of (8, 30, 40) -> float32 (30,)" "pass 2: sum(x*y): x*y over axes (0, 1, 2) of (8, 30, 40) -> float32 ()" "pass 4: elementwise (8, 30, 40): out (reads pass 2)"; do
  [[ "$out" == *"$line"* ]] || { echo "FAIL: jitrun -v --emit lacks '$line': $out"; fails=$((fails + 1)); }
done
# A cubin per kernel: PATH with the kernel's number before its extension.
expect 0 "cubin to $TMP/r.4.cubin (kernel 4 of 4: pass 4: elementwise (8, 30, 40): out (reads pass 2))" -- --emit cubin -o "$TMP/r.cubin" --arch sm_80 -i 'x=rand(8x30x40)' -i 'y=rand(8x30x40)' "$P"
for k in 1 2 3 4; do [ -s "$TMP/r.$k.cubin" ] || { echo "FAIL: no cubin r.$k.cubin"; fails=$((fails + 1)); }; done
[ ! -e "$TMP/r.cubin" ] || { echo "FAIL: r.cubin written beside the numbered ones"; fails=$((fails + 1)); }
# One kernel: PATH itself (the map fused into the sum, which writes s).
expect 0 "cubin to $TMP/s.cubin (kernel 1 of 1: pass 1: sum(x*y)" -- --emit cubin -o "$TMP/s.cubin" --arch sm_80 -i 'x=rand(1000)' -i 'y=rand(1000)' 's = sum(x*y)'
expect 1 "--emit cubin -o -: this program runs 4 kernels (jitrun -v shows its passes), and standard output takes one; give -o PATH for one file per kernel (PATH with .1, .2, ... before its extension), or use --emit ptx" -- --emit cubin -o - --arch sm_80 -i 'x=rand(8x30x40)' -i 'y=rand(8x30x40)' "$P"
expect 0 "rows normalised in one pass" -- --emit source -i 'x=rand(64x100)' 'z = (x - mean(x, axis=1, keepdims=true)) / std(x, axis=1, keepdims=true)'
# A cast of a clip with constant bounds is one clamp (codegen's clip_cast), not when lo >= 1 (a NaN must give 0).
expect 0 "v_z = cj::clip_cast<cj_u8>(cj::rint(" -- --emit source -t z=uint8 -i 'x=rand(100):uint8' 'z = uint8(clip(rint(float32(x)*1.2 + 10), 0, 255))'
out=$("$JITRUN" --emit source -t z=uint8 -i 'x=rand(100)' 'z = uint8(clip(x, 1, 255))' 2>&1)
[[ "$out" == *"cj::cast<cj_u8>(cj::clip("* && "$out" != *"clip_cast<"* ]] || { echo "FAIL: clip(x, 1, 255) to uint8 fused: $out" | head -3; fails=$((fails + 1)); }

if [ "$fails" != 0 ]; then
  echo "$fails jitrun check(s) failed"
  exit 1
fi
echo "all jitrun checks passed"
