#!/usr/bin/env bash
# Binaries generate kernels from the templates embedded at build time; only
# CUJIT_TEMPLATE_DIR makes them read template files, and then only that
# folder's. The cache key hashes the generated source, so "compiled" versus
# "already cached" shows which templates a compile used (NVRTC, no GPU).
# Usage: template_dir_test.sh path/to/jitcache path/to/templates
set -u
JITCACHE="$1"
TEMPLATES="$2"
unset CUJIT_TEMPLATE_DIR
export CUJIT_CACHE_DIR=$(mktemp -d)
work=$(mktemp -d)
trap 'rm -rf "$CUJIT_CACHE_DIR" "$work"' EXIT
fails=0

expect() {  # expect CODE SUBSTRING TEMPLATE_DIR|- -- ARGS...
  local code="$1" want="$2" dir="$3"
  shift 4
  local out rc
  if [ "$dir" = - ]; then out=$("$JITCACHE" "$@" 2>&1); else out=$(CUJIT_TEMPLATE_DIR="$dir" "$JITCACHE" "$@" 2>&1); fi
  rc=$?
  if [ "$rc" != "$code" ] || [[ "$out" != *"$want"* ]]; then
    echo "FAIL: CUJIT_TEMPLATE_DIR=$dir jitcache $* -> exit $rc (want $code)"
    echo "  output: $out"
    echo "  wanted: $want"
    fails=$((fails + 1))
  fi
}

# No binary reads the source tree's templates by itself: its path is not even in it
# (a build from a checkout that has moved on must not mix in other templates).
# Debug information names source files (the CPU evaluator includes templates/*.cuh as
# C++), so the check reads the binary without it.
NODEBUG="$work/jitcache.nodebug"
objcopy --strip-debug "$JITCACHE" "$NODEBUG" 2>/dev/null || cp "$JITCACHE" "$NODEBUG"
# An AddressSanitizer build's global descriptors name their source files too (the
# templates the CPU evaluator includes): there the plain build's run of this test
# holds the check, and the behaviour below is still checked.
if grep -qaF "__asan_init" "$NODEBUG"; then
  echo "note: an AddressSanitizer build names its sources for its reports; the path check is the plain build's"
elif grep -qaF "$(cd "$TEMPLATES" && pwd)" "$NODEBUG"; then
  echo "FAIL: $JITCACHE names the source tree's templates folder"
  fails=$((fails + 1))
fi

prog='out = x * 2'
expect 0 "compiled" - -- compile -i x=float32 "$prog"
# The source tree's templates are the embedded ones: same kernel source, same key.
expect 0 "already cached" "$TEMPLATES" -- compile -i x=float32 "$prog"
# An edited copy is used as it is: a new source, a new entry.
cp -r "$TEMPLATES" "$work/edited"
echo "// edited by template_dir_test.sh" >> "$work/edited/prelude.cuh"
expect 0 "compiled" "$work/edited" -- compile -i x=float32 "$prog"
expect 0 "already cached" "$work/edited" -- compile -i x=float32 "$prog"
# Unset, the embedded templates again.
expect 0 "already cached" - -- compile -i x=float32 "$prog"
# A folder without the templates is an error naming the variable, not a silent fallback.
mkdir "$work/empty"
expect 1 "not found in CUJIT_TEMPLATE_DIR ($work/empty); point it at a copy of cujit's templates/ folder, or unset it" \
  "$work/empty" -- compile -i x=float32 "$prog"
expect 0 "4 entries in" - -- list  # two compiles, each a vectorized and a scalar contiguous kernel

if [ "$fails" != 0 ]; then
  echo "$fails template folder check(s) failed"
  exit 1
fi
echo "template folder: all checks passed"
