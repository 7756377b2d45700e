#!/usr/bin/env bash
# The deployment flow's parts that need no toml++ (deploy_test.sh covers the
# manifests): record mode with 8 processes at once (jitrun --emit ptx compiles
# through the launcher's cache path), export + import of the recorded caches,
# a run over the imported cache that compiles nothing, and import of damaged,
# truncated and foreign files. Runs in every build, with no GPU.
# Usage: deploy_flow_test.sh path/to/jitcache path/to/jitrun
set -u
JITCACHE="$1"
JITRUN="$2"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
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

# ---- record mode: 8 processes at once ---------------------------------------------------
# Each process has its own cache, so each compiles (and records) both its own
# kernel and the one they share; the file must hold each kernel once.
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
for k in 1 2 3 4 5 6 7 8; do
  grep -q "^program = \"out = x \\* $k\"" rec.toml || { echo "FAIL: rec.toml lacks out = x * $k"; fails=$((fails + 1)); }
done

# ---- export and import ------------------------------------------------------------------
# Process 1's cache plus one sm_80 kernel: the --arch filter keeps the sm_90 ones.
export CUJIT_CACHE_DIR="$WORK/rc1"
expect 0 "" -- "$JITRUN" "out = x - 7" -i "x=arange(64):float64" --emit ptx --arch sm_80
expect 0 "exported 2 entries" -- "$JITCACHE" export pack90.cjp --arch sm_90
expect 0 "exported 3 entries" -- "$JITCACHE" export pack.cjp
export CUJIT_CACHE_DIR="$WORK/imported"
expect 0 "imported 3 entries" -- "$JITCACHE" import pack.cjp
expect 0 "imported 0 entries into $WORK/imported (3 already there)" -- "$JITCACHE" import pack.cjp
expect 0 "3 entries checked, 0 bad" -- "$JITCACHE" verify
# The imported kernels are found: nothing is compiled.
expect 0 "jitrun: kernel cache" -- "$JITRUN" "out = x + 100" -i "x=arange(64):int8" --emit ptx --arch sm_90 -v
expect 0 "jitrun: kernel cache" -- "$JITRUN" "out = x - 7" -i "x=arange(64):float64" --emit ptx --arch sm_80 -v
expect 0 "entries: 3" -- "$JITCACHE" stats
export CUJIT_CACHE_DIR="$WORK/imported90"
expect 0 "imported 2 entries" -- "$JITCACHE" import pack90.cjp
# Damaged, truncated and foreign files: refused, nothing imported.
export CUJIT_CACHE_DIR="$WORK/refused"
size=$(stat -c %s pack.cjp)
cp pack.cjp damaged.cjp
printf 'X' | dd of=damaged.cjp bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
expect 3 "damaged.cjp: checksum mismatch (the file is damaged or truncated); nothing was imported" -- "$JITCACHE" import damaged.cjp
head -c $((size - 100)) pack.cjp > truncated.cjp
expect 3 "truncated.cjp: checksum mismatch (the file is damaged or truncated); nothing was imported" -- "$JITCACHE" import truncated.cjp
head -c 20 pack.cjp > stub.cjp
expect 3 "stub.cjp: truncated (20 bytes, a header and checksum alone take 40); nothing was imported" -- "$JITCACHE" import stub.cjp
expect 3 "rec.toml: not a cujit cache export (no CUJITPAK signature" -- "$JITCACHE" import rec.toml
expect 3 "nope.cjp: cannot read" -- "$JITCACHE" import nope.cjp
expect 0 "entries: 0" -- "$JITCACHE" stats
if [ -n "$(find "$WORK/refused" -type f 2>/dev/null)" ]; then echo "FAIL: a refused import wrote files"; fails=$((fails + 1)); fi

if [ "$fails" != 0 ]; then
  echo "$fails failures"
  exit 1
fi
echo "deploy flow: all passed"
