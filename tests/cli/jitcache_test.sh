#!/usr/bin/env bash
# jitcache end to end on a fresh cache directory: compile (NVRTC, no GPU),
# list, verify with a corrupted entry, prune, clear, and exit codes.
# Usage: jitcache_test.sh path/to/jitcache
set -u
JITCACHE="$1"
export CUJIT_CACHE_DIR=$(mktemp -d)
trap 'rm -rf "$CUJIT_CACHE_DIR"' EXIT
fails=0

expect() {  # expect CODE SUBSTRING -- ARGS...
  local code="$1" want="$2"
  shift 3
  local out rc
  out=$("$JITCACHE" "$@" 2>&1)
  rc=$?
  if [ "$rc" != "$code" ] || [[ "$out" != *"$want"* ]]; then
    echo "FAIL: jitcache $* -> exit $rc (want $code)"
    echo "  output: $out"
    echo "  wanted: $want"
    fails=$((fails + 1))
  fi
}

expect 0 "compiled" -- compile -i x=float32 'out = sin(x)*5'
expect 0 "already cached" -- compile -i x=float32 'out = sin(x)*5'
expect 0 "s.i32.d2" -- compile -i x=float16 -i a=float64:weak 'out = x * a' --layout strided --ndim 2
expect 0 "3 entries in" -- list
entry=$(find "$CUJIT_CACHE_DIR" -type f ! -name '*.lock' | head -1)
printf 'X' | dd of="$entry" bs=1 seek=100 conv=notrunc 2>/dev/null
expect 3 "checksum mismatch" -- verify
expect 0 "(removed)" -- verify --remove
expect 0 "2 entries checked, 0 bad" -- verify
expect 0 "removed 0 entries" -- prune --older-than 30d
expect 0 "kept 0" -- prune --max-size 0
expect 0 "entries: 0" -- stats
expect 0 "compiled" -- compile -i x=int8 -i r=int32:raw 'out = x + r[i % size(r)]'
expect 0 "removed 2 entries" -- clear
expect 1 "-i x: unknown dtype 'flaot' (did you mean 'float'" -- compile -i x=flaot 'out = x'
expect 1 "--arch" -- compile --arch smXX -i x=float32 'out = x'
# A program with reductions is several kernels planned from its shapes: a manifest's job.
expect 1 "a program with reductions (sum, mean, max, ...) runs as several kernels, one or more per pass, planned from its input shapes, not as one elementwise kernel: precompile it from a manifest entry with shapes = [{ x = [1000] }] (jitcache precompile), or see its kernels with jitrun --emit" -- compile -i x=float32 'out = x / sum(x)'
expect 1 "prune needs" -- prune
expect 2 "hint: did you mean 'sin'?" -- compile -i x=float32 'out = sinn(x)'
CUJIT_CACHE=0 expect 0 "cache disabled by CUJIT_CACHE=0: nothing to list" -- list

# Issue 13: a FIFO in place of an entry hangs nothing (each command is bounded
# by `timeout`, exit 124 when it would have hung); a folder others can write
# is not used.
expect_bounded() {  # expect_bounded CODE SUBSTRING -- ARGS...
  local code="$1" want="$2"
  shift 3
  local out rc
  out=$(timeout 60 "$JITCACHE" "$@" 2>&1)
  rc=$?
  if [ "$rc" != "$code" ] || [[ "$out" != *"$want"* ]]; then
    echo "FAIL: jitcache $* -> exit $rc (want $code; 124 is a hang)"
    echo "  output: $out"
    echo "  wanted: $want"
    fails=$((fails + 1))
  fi
}
expect_bounded 0 "compiled" -- compile -i x=float32 'out = x + 1'
entry=$(find "$CUJIT_CACHE_DIR" -type f ! -name '*.lock' | head -1)
rm -f "$entry" && mkfifo "$entry"
expect_bounded 0 "BAD: unreadable (not a regular file)" -- list
expect_bounded 3 "unreadable (not a regular file)" -- verify
expect_bounded 0 "not a regular file); recompiling" -- compile -i x=float32 'out = x + 1'
expect_bounded 0 "2 entries checked, 0 bad" -- verify
chmod 0777 "$CUJIT_CACHE_DIR"
expect_bounded 3 "it is writable by group or others (mode 0777)" -- compile -i x=float32 'out = x + 2'
expect_bounded 3 "not using the cache folder" -- list
expect_bounded 3 "it is writable by group or others (mode 0777)" -- clear
chmod 0700 "$CUJIT_CACHE_DIR"
expect_bounded 0 "2 entries in" -- list

# With no GPU to take the target from, jitcache names its own flag (the library's
# message names PrecompileOptions::archs); a manifest's NumPy dtype spelling is taken.
printf '[[kernel]]\nprogram = "out = x * 2"\ninputs = ["x=f4"]\n' > "$CUJIT_CACHE_DIR/m.toml"
CUDA_VISIBLE_DEVICES= expect 1 "jitcache: no target to compile for: name one, e.g. --arch sm_90, or a manifest kernel's arch field (there is no GPU to take it from: " -- precompile "$CUJIT_CACHE_DIR/m.toml"
expect 0 "1 kernels: 1 compiled" -- precompile "$CUJIT_CACHE_DIR/m.toml" --arch sm_90

if [ "$fails" != 0 ]; then
  echo "$fails jitcache check(s) failed"
  exit 1
fi
echo "all jitcache checks passed"
