#!/usr/bin/env bash
# The hostile-input corpus (issue 13): runs every case of cases.txt against
# jitrun and jitcache, each under a time bound (timeout) and a memory bound
# (ulimit -v), and checks its exit code. A case is one line:
#   EXPECTED-EXIT  shell command
# evaluated by bash with $JITRUN, $JITCACHE, $T (a fresh folder with the
# fixtures below) and the generated texts below ($POW_CHAIN, ...) defined.
# Usage: run.sh JITRUN JITCACHE CASES [--no-memory-limit]
# (--no-memory-limit for sanitizer builds, whose shadow memory needs terabytes
# of address space.)
set -uo pipefail
JITRUN=$1 JITCACHE=$2 CASES=$3
MEMORY_LIMIT_KB=4194304  # 4 GiB of address space per case
[ "${4:-}" = --no-memory-limit ] && MEMORY_LIMIT_KB=unlimited
TIME_LIMIT=${CUJIT_HOSTILE_TIMEOUT:-10}
T=$(mktemp -d "${TMPDIR:-/tmp}/cujit_hostile.XXXXXX")
trap 'rm -rf "$T"' EXIT
export CUJIT_CACHE_DIR=$T/cache
export JITRUN JITCACHE T

# ---- fixtures ----
# mknpy FILE DESCR FORTRAN SHAPE [DATA-printf-escapes]: a version 1.0 .npy file.
mknpy() {
  local dict="{'descr': '$2', 'fortran_order': $3, 'shape': $4, }"
  local len=$(( ${#dict} + 1 )); local pad=$(( 64 - (10 + len) % 64 ))
  local total=$(( len + pad ))
  { printf '\x93NUMPY\x01\x00'; printf "\\x$(printf %02x $((total & 255)))\\x$(printf %02x $((total >> 8)))"
    printf '%s%*s\n' "$dict" "$pad" ''; printf "${5:-}"; } > "$1"
}
mknpy "$T/f0x3.npy" '<f4' True '(0, 3)'
mknpy "$T/f3x0.npy" '<f4' True '(3, 0)'
mknpy "$T/f2x0x2.npy" '<f4' True '(2, 0, 2)'
mknpy "$T/b0x3.npy" '>f4' True '(0, 3)'
mknpy "$T/b2x0x2.npy" '>c8' True '(2, 0, 2)'
mknpy "$T/good.npy" '<f4' False '(2,)' '\x00\x00\x80\x3f\x00\x00\x00\x40'
mknpy "$T/fortran2x2.npy" '<i1' True '(2, 2)' '\x01\x03\x02\x04'
mknpy "$T/overflow.npy" '<f8' False '(4294967296, 4294967296)'
mknpy "$T/toobig.npy" '<f8' False '(1000000000, 1000)'
mknpy "$T/negative.npy" '<f4' False '(-1,)'
mknpy "$T/object.npy" '|O' False '(1,)' '\x00\x00\x00\x00\x00\x00\x00\x00'
mknpy "$T/nested.npy" '<f4' False "$(printf '(%.0s' {1..100})1$(printf ')%.0s' {1..100})"
mknpy "$T/strshape.npy" '<f4' False "('a',)"
mknpy "$T/many_dims.npy" '<f4' False '(1,1,1,1,1,1,1,1,1)'
printf 'not a npy file at all' > "$T/badmagic.npy"
printf '\x93NUMPY\x02\x00\xff\xff\xff\xff' > "$T/hugeheader.npy"
printf '\x93NUMPY\x01\x00\xff\xff{' > "$T/shortheader.npy"
printf '\x93NUMPY\x09\x00\x10\x00' > "$T/version9.npy"
mkfifo "$T/fifo" "$T/fifo_out" "$T/fifo_cubin"
mkdir "$T/dir" "$T/dir_out"

# ---- generated texts (each under the 128 KiB a single argument may hold) ----
rep() { local s=$1 n=$2 out=""; while [ "$n" -gt 0 ]; do [ $((n & 1)) = 1 ] && out+=$s; s+=$s; n=$((n >> 1)); done; printf %s "$out"; }
export POW_CHAIN="out = x$(rep ' ** x' 20000)"          # 20,000 terms: was a SIGSEGV
export TERN_CHAIN="out = $(rep 'c ? x : ' 15000)x"        # right-associative too
export PARENS="out = $(rep '(' 50000)x$(rep ')' 50000)"
export LEFT_CHAIN="out = x$(rep '+x' 50000)"
export UNARY_CHAIN="out = $(rep '-' 100000)x"
export CALL_CHAIN="out = $(rep 'sin(' 20000)x$(rep ')' 20000)"
export NAME_100K=$(rep a 100000)
export LONG_NAME_PROGRAM="out = $(rep b 60000) + $(rep c 60000)"
export STMTS_10K=$(for k in $(seq 0 9999); do printf 'a%d=x;' "$k"; done)
export STMTS_14K=$(for k in $(seq 0 13999); do printf 'a%d=x;' "$k"; done)
export PARAMS_129=$(for k in $(seq 0 128); do printf -- '-i x%d=1.0 ' "$k"; done)
export BIG_LITERAL="out = $(rep 9 100000)"

pass=0 fail=0
while IFS= read -r line || [ -n "$line" ]; do
  case "$line" in ''|'#'*) continue ;; esac
  want=${line%% *} cmd=${line#* }
  if [ "$want" = root ]; then  # root-only: a check that needs to replace a device
    [ "$(id -u)" = 0 ] || continue
    want=${cmd%% *} cmd=${cmd#* }
  fi
  start=$(date +%s%N)
  out=$( (ulimit -v "$MEMORY_LIMIT_KB"; timeout -k 2 "$TIME_LIMIT" bash -c "$cmd") 2>&1 </dev/null)
  got=$?
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  if [ "$got" = "$want" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    printf 'FAIL (exit %s, expected %s, %d ms): %.300s\n' "$got" "$want" "$ms" "$cmd"
    printf '%.600s\n' "$out" | sed 's/^/    /'
  fi
done < "$CASES"
echo "hostile: $pass passed, $fail failed (each within ${TIME_LIMIT} s and $MEMORY_LIMIT_KB KiB of address space)"
[ "$fail" = 0 ]
