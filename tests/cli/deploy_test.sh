#!/usr/bin/env bash
# The deployment flow with manifests, with no GPU (needs toml++; the parts
# that need none are deploy_flow_test.sh, run in every build): manifest errors (exact
# messages with file:line:column and field), precompile (then list shows the
# entries and a second run finds them all cached), record mode with 8
# processes at once (jitrun --emit ptx compiles through the launcher's cache
# path), export + import, and import of damaged, truncated and foreign files.
# Usage: deploy_test.sh path/to/jitcache path/to/jitrun
set -u
JITCACHE="$1"
JITRUN="$2"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
export CUJIT_CACHE_DIR="$WORK/cache"
fails=0

expect() {  # expect CODE SUBSTRING -- COMMAND ARGS...
  local code="$1" want="$2"
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" != "$code" ] || [[ "$out" != *"$want"* ]]; then
    echo "FAIL: $* -> exit $rc (want $code)"
    echo "  output: $out"
    echo "  wanted: $want"
    fails=$((fails + 1))
  fi
}

if "$JITCACHE" precompile /dev/null --arch sm_90 2>&1 | grep -q "built without toml++"; then
  echo "skipped: this build has no toml++ (libtomlplusplus-dev): manifests are not read"
  exit 77
fi

# ---- manifest errors --------------------------------------------------------------
printf '[[kernel]]\nname = "k"\nprogram = "out = x"\ninputs = ["x=float33"]\n' > e1.toml
expect 3 "e1.toml:4:10: kernel 'k': 'inputs': 'x=float33': 'float33' is neither a dtype nor a placeholder of 'types'" -- \
  "$JITCACHE" precompile e1.toml --arch sm_90
printf '[[kernel]]\nname = "k"\nprogram = "out = x"\ninputs = ["x=T"]\ntypes = { T = ["float32", "bogus"] }\n' > e2.toml
expect 3 "e2.toml:5:27: kernel 'k': 'types.T': unknown dtype 'bogus'" -- "$JITCACHE" precompile e2.toml --arch sm_90
printf '[[kernel]]\nname = "k"\nprogram = "out = x"\ninputs = ["x=float32"]\nlayout = 3\n' > e3.toml
expect 3 "e3.toml:5:10: kernel 'k': unknown field 'layout'" -- "$JITCACHE" precompile e3.toml --arch sm_90
printf '[[kernel]]\nname = "k"\n\n' > e4.toml
expect 3 "e4.toml:1:1: kernel 'k': give either operation" -- "$JITCACHE" precompile e4.toml --arch sm_90
printf '[[kernel]\nname = "k"\n' > e5.toml
expect 3 "e5.toml:1:10: TOML syntax error" -- "$JITCACHE" precompile e5.toml --arch sm_90
printf '[[kernel]]\nname = "k"\nprogram = "out = x"\ninputs = ["x=float32"]\nlayouts = ["diagonal"]\n' > e6.toml
expect 3 "e6.toml:5:12: kernel 'k': 'layouts': unknown layout 'diagonal'" -- "$JITCACHE" precompile e6.toml --arch sm_90
printf '[[kernel]]\nname = "k"\nprogram = "out = x"\ninputs = ["x=float32"]\nindex = [16]\n' > e7.toml
expect 3 "e7.toml:5:10: kernel 'k': 'index': expected 32 or 64" -- "$JITCACHE" precompile e7.toml --arch sm_90
printf '[[kernel]]\nname = "k"\nin_params = "T x"\nout_params = "T y"\noperation = "y = x"\ninputs = ["x=float32"]\n' > e8.toml
expect 3 "e8.toml:6:10: kernel 'k': 'inputs': belongs to program kernels only" -- "$JITCACHE" precompile e8.toml --arch sm_90
printf '[[kernel]]\nname = "k"\nprogram = "out = x +"\ninputs = ["x=float32"]\n' > e9.toml
expect 2 "e9.toml:3:11: kernel 'k': error: expected an expression" -- "$JITCACHE" precompile e9.toml --arch sm_90
printf 'kernels = 1\n' > e10.toml
expect 3 "e10.toml:1:11: unknown top-level field 'kernels'" -- "$JITCACHE" precompile e10.toml --arch sm_90
expect 3 "missing.toml: cannot read the manifest: No such file or directory" -- "$JITCACHE" precompile missing.toml --arch sm_90
expect 0 "entries: 0" -- "$JITCACHE" stats

# ---- precompile ----------------------------------------------------------------------
cat > m.toml <<'TOML'
[[kernel]]
name = "axpy"
in_params = "T x, T y, float32 a"
out_params = "T z"
operation = "z = a * x + y"
types = { T = ["float32", "float64"] }
scalars = { a = "float" }
layouts = ["contiguous", "strided"]

[[kernel]]
program = "out = x * 2 + 1"
inputs = ["x=T"]
types = { T = ["float32", "float16", "int8"] }
TOML
expect 0 "14 kernels: 14 compiled, 0 already cached, 0 failed" -- "$JITCACHE" precompile m.toml --arch sm_80,sm_90 -j 2
expect 0 "14 entries in" -- "$JITCACHE" list
# The launcher's vector widths: 16 int8 or 8 float16 elements per step, not 4.
expect 0 "cujit_kernel: out = x * 2 + 1  [x=int8]  c.i32.v16|o:c|i:c" -- "$JITCACHE" list
expect 0 "cujit_kernel: out = x * 2 + 1  [x=float16]  c.i32.v8|o:c|i:c" -- "$JITCACHE" list
expect 0 "axpy: z = a * x + y  [T=float64 a:float]  s.i32.d2|o:s|i:s,s,v" -- "$JITCACHE" list
expect 0 '"layout": "c.i32.v16|o:c|i:c"' -- "$JITCACHE" list --json
expect 0 '"entries": 14' -- "$JITCACHE" stats --json
expect 0 "14 kernels: 0 compiled, 14 already cached, 0 failed" -- "$JITCACHE" precompile m.toml --arch sm_80,sm_90
# A manifest's own arch field, and a failure among good kernels.
printf '[[kernel]]\nprogram = "out = x * 3"\ninputs = ["x=float32"]\narch = ["sm_90"]\n\n[[kernel]]\nname = "bad"\nprogram = "out = y"\ninputs = ["x=float32"]\n' > mixed.toml
expect 2 "1 compiled, 0 already cached, 1 failed" -- "$JITCACHE" precompile mixed.toml --arch sm_90
expect 0 "15 entries in" -- "$JITCACHE" list

# ---- record mode: 8 processes at once ---------------------------------------------------
# Each process has its own cache, so each compiles (and records) both its own
# kernel and the one they share; the file must hold each kernel once.
rm -f rec.toml
pids=()
for k in 1 2 3 4 5 6 7 8; do
  ( export CUJIT_CACHE_DIR="$WORK/rc$k" CUJIT_RECORD="$WORK/rec.toml"
    "$JITRUN" "out = x * $k" -i "x=arange(64):float32" --emit ptx --arch sm_90 > /dev/null &&
    "$JITRUN" "out = x + 100" -i "x=arange(64):int8" --emit ptx --arch sm_90 > /dev/null ) &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p" || { echo "FAIL: a recording jitrun failed"; fails=$((fails + 1)); }; done
n=$(grep -c '^\[\[kernel\]\]' rec.toml)
shared=$(grep -c '^program = "out = x + 100"' rec.toml)
if [ "$n" != 9 ] || [ "$shared" != 1 ]; then
  echo "FAIL: record file has $n entries ($shared of the shared kernel), want 9 (1)"; cat rec.toml; fails=$((fails + 1))
fi
# A recorded file is a manifest as it is: a fresh cache gets exactly those kernels,
# and jitrun then finds them (no compile).
export CUJIT_CACHE_DIR="$WORK/fromrec"
expect 0 "9 kernels: 9 compiled, 0 already cached, 0 failed" -- "$JITCACHE" precompile rec.toml
expect 0 "jitrun: kernel cache" -- "$JITRUN" "out = x + 100" -i "x=arange(64):int8" --emit ptx --arch sm_90 -v
expect 0 "9 entries in" -- "$JITCACHE" list

# ---- programs with reductions: shapes, not layouts ----------------------------------------
# Each set of shapes gets every kernel of the call's passes (the fused sum,
# the axis max, its copy of x, the epilogue); list names the program and shapes.
export CUJIT_CACHE_DIR="$WORK/red"
cat > red.toml <<'TOML'
[[kernel]]
program = "s = sum(x*y); m = max(x, axis=(0, 2)); out = x / s"
inputs = ["x=float32", "y=float32"]
shapes = [{ x = [8, 30, 40], y = [8, 30, 40] }]
TOML
expect 0 "4 kernels: 4 compiled, 0 already cached, 0 failed" -- "$JITCACHE" precompile red.toml --arch sm_90
expect 0 "cujit_kernel: s = sum(x*y); m = max(x, axis=(0, 2)); out = x / s  [x=float32 y=float32]  shapes x=(8x30x40) y=(8x30x40)" -- "$JITCACHE" list
expect 0 "4 kernels: 0 compiled, 4 already cached, 0 failed" -- "$JITCACHE" precompile red.toml --arch sm_90
printf '[[kernel]]\nprogram = "s = sum(x)"\ninputs = ["x=float32"]\n' > nos.toml
expect 3 "nos.toml:2:11: kernel 'cujit_kernel': a program with reductions is compiled for the input shapes it will be called with (its kernels depend on them): add shapes = [{ x = [1000] }], one table per call's shapes" -- "$JITCACHE" precompile nos.toml --arch sm_90
# Record mode: one entry for the whole program, with its shapes; precompiled
# into a fresh cache, it spares jitrun every compile of the program's kernels.
rm -f redrec.toml
CUJIT_CACHE_DIR="$WORK/red1" CUJIT_RECORD="$WORK/redrec.toml" "$JITRUN" --emit ptx --arch sm_90 -i 'x=rand(64x100)' -i 'a=2.0f' 'm = max(x*a, axis=0); z = (x - m) / sum(x)' > /dev/null
if [ "$(grep -c '^\[\[kernel\]\]' redrec.toml)" != 1 ] || ! grep -q '^shapes = \[{ x = \[64, 100\], a = "scalar" }\]$' redrec.toml; then
  echo "FAIL: the record of a program with reductions is not one entry with its shapes"; cat redrec.toml; fails=$((fails + 1))
fi
export CUJIT_CACHE_DIR="$WORK/red2"
expect 0 "4 kernels: 4 compiled, 0 already cached, 0 failed" -- "$JITCACHE" precompile redrec.toml
out=$("$JITRUN" --emit ptx --arch sm_90 -v -i 'x=rand(64x100)' -i 'a=2.0f' 'm = max(x*a, axis=0); z = (x - m) / sum(x)' 2>&1 >/dev/null)
if [ "$(grep -c 'jitrun: kernel [0-9]: kernel cache' <<< "$out")" != 4 ] || grep -q NVRTC <<< "$out"; then
  echo "FAIL: jitrun compiled kernels the recorded entry precompiled"; echo "$out"; fails=$((fails + 1))
fi

# ---- export and import ------------------------------------------------------------------
export CUJIT_CACHE_DIR="$WORK/cache"
expect 0 "exported 8 entries" -- "$JITCACHE" export pack90.cjp --arch sm_90
expect 0 "exported 15 entries" -- "$JITCACHE" export pack.cjp
export CUJIT_CACHE_DIR="$WORK/imported"
expect 0 "imported 15 entries" -- "$JITCACHE" import pack.cjp
expect 0 "imported 0 entries into $WORK/imported (15 already there)" -- "$JITCACHE" import pack.cjp
expect 0 "15 entries checked, 0 bad" -- "$JITCACHE" verify
expect 0 "14 kernels: 0 compiled, 14 already cached, 0 failed" -- "$JITCACHE" precompile m.toml --arch sm_80,sm_90
# Damaged, truncated and foreign files: refused, nothing imported.
export CUJIT_CACHE_DIR="$WORK/refused"
cp pack.cjp damaged.cjp
printf 'X' | dd of=damaged.cjp bs=1 seek=2000 conv=notrunc 2>/dev/null
expect 3 "damaged.cjp: checksum mismatch (the file is damaged or truncated); nothing was imported" -- "$JITCACHE" import damaged.cjp
head -c 5000 pack.cjp > truncated.cjp
expect 3 "truncated.cjp: checksum mismatch (the file is damaged or truncated); nothing was imported" -- "$JITCACHE" import truncated.cjp
head -c 20 pack.cjp > stub.cjp
expect 3 "stub.cjp: truncated (20 bytes, a header and checksum alone take 40); nothing was imported" -- "$JITCACHE" import stub.cjp
expect 3 "m.toml: not a cujit cache export (no CUJITPAK signature" -- "$JITCACHE" import m.toml
expect 3 "nope.cjp: cannot read" -- "$JITCACHE" import nope.cjp
expect 0 "entries: 0" -- "$JITCACHE" stats
if [ -n "$(find "$WORK/refused" -type f 2>/dev/null)" ]; then echo "FAIL: a refused import wrote files"; fails=$((fails + 1)); fi

if [ "$fails" != 0 ]; then
  echo "$fails failures"
  exit 1
fi
echo "deploy: all passed"
