#!/usr/bin/env bash
# The everyday edges of jitrun and jitcache: --version, --help (exit codes and
# every CUJIT_* variable the code reads), '-' for standard input and output,
# -f FILE, colour on a terminal only, and CUJIT_CACHE=0 as a state.
# Usage: tools_io_test.sh path/to/jitrun path/to/jitcache SOURCE_DIR
set -u
JITRUN="$1"
JITCACHE="$2"
SRC="$3"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export CUJIT_CACHE_DIR="$TMP/cache"
fails=0

fail() {
  echo "FAIL: $1"
  shift
  for line in "$@"; do echo "  $line"; done
  fails=$((fails + 1))
}

# same NAME WANT GOT: exact comparison
same() {
  if [ "$2" != "$3" ]; then
    fail "$1" "wanted: $(printf '%q' "$2")" "got:    $(printf '%q' "$3")"
  fi
}

# run CMD...: sets out (stdout+stderr) and rc
run() {
  out=$("$@" 2>&1)
  rc=$?
}

# ---- --version and --help
for tool in jitrun jitcache; do
  bin=$JITRUN
  [ "$tool" = jitcache ] && bin=$JITCACHE
  run "$bin" --version
  same "$tool --version exit" 0 "$rc"
  [[ "$out" =~ ^$tool\ \(cujit\)\ [0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "$tool --version" "got: $out"
  run "$bin" --help
  same "$tool --help exit" 0 "$rc"
  for want in "Exit codes:" "  1  usage:" "  2  program:" "  3  data:" "  4  device:" "  5  internal:" NO_COLOR; do
    [[ "$out" == *"$want"* ]] || fail "$tool --help lists '$want'" "got: $out"
  done
  # Every CUJIT_* variable the code reads (a "CUJIT_..." string literal) is in --help.
  for var in $(grep -rhoE '"CUJIT_[A-Z0-9_]+"' "$SRC/src" "$SRC/tools" | tr -d '"' | sort -u); do
    [[ "$out" == *"$var"* ]] || fail "$tool --help lists $var (read by the code)"
  done
done

# ---- '-': a .npy through standard input and output
"$JITRUN" --device cpu -i 'x=arange(5):float64' -o y="$TMP/x.npy" 'y = x' || fail "write x.npy"
"$JITRUN" --device cpu -i 'x=arange(5):float64' -o out=- 'out = x * 2.5' > "$TMP/piped.npy" 2> "$TMP/err.txt"
same "-o out=- exit" 0 "$?"
"$JITRUN" --device cpu -i 'x=arange(5):float64' -o out="$TMP/file.npy" 'out = x * 2.5'
cmp -s "$TMP/piped.npy" "$TMP/file.npy" || fail "-o out=- writes the same bytes as -o out=FILE"
same "-o out=- keeps stderr quiet" "" "$(cat "$TMP/err.txt")"
run bash -c "'$JITRUN' --device cpu -i x=- --print 'out = x + 1' < '$TMP/piped.npy'"
same "-i x=- from a file" "out = [ 1.   3.5  6.   8.5 11. ]" "$out"
run bash -c "'$JITRUN' --device cpu -i 'x=arange(3):int32' -o y=- 'y = x * 3' | '$JITRUN' --device cpu -i y=- --print 'z = y + 1'"
same "jitrun | jitrun" "z = [1 4 7]" "$out"
# With a .npy on stdout, the other outputs' summaries go to stderr.
"$JITRUN" --device cpu -i 'x=arange(3)' -o a=- 'a = x * 2
b = x + 1' > "$TMP/a.npy" 2> "$TMP/err.txt"
same "other outputs' summaries on stderr" "b: float32 (3,)  min: 1  max: 3  mean: 2" "$(cat "$TMP/err.txt")"
run bash -c "'$JITRUN' --device cpu -i x=- --print 'out = x' < /dev/null"
same "-i x=- with empty input exit" 3 "$rc"
run bash -c "'$JITRUN' --device cpu -i x=- -i y=- 'out = x + y' < '$TMP/x.npy'"
same "two inputs from stdin" "jitrun: only one of -f and -i can read standard input ('-'); save the others to files" "$out"
same "two inputs from stdin exit" 1 "$rc"
run bash -c "'$JITRUN' --device cpu -i 'x=arange(3)' -o a=- -o b=- 'a = x
b = x' > /dev/null"
same "two outputs to stdout" "jitrun: -o a=- and -o b=-: only one output can go to standard output" "$out"
run bash -c "'$JITRUN' --device cpu --print -i 'x=arange(3)' -o out=- 'out = x' > /dev/null"
same "--print with -o -" "jitrun: --print and -o out=- both write to standard output; drop one" "$out"
if command -v script > /dev/null; then
  # On a terminal, '-' is refused rather than waiting or spraying binary.
  run script -qec "'$JITRUN' --device cpu -i x=- 'out = x'" /dev/null
  same "-i x=- on a terminal" "jitrun: -i x=-: standard input is a terminal; pipe or redirect the data in (e.g. < file)" "${out//$'\r'/}"
  run script -qec "'$JITRUN' --device cpu -i 'x=arange(3)' -o out=- 'out = x'" /dev/null
  same "-o out=- on a terminal" "jitrun: -o out=-: standard output is a terminal; redirect it to a file or a pipe" "${out//$'\r'/}"
fi

# ---- -f FILE, -f -
printf 'y = x * 2\nout = y + 1\n' > "$TMP/prog.cj"
run "$JITRUN" --device cpu -f "$TMP/prog.cj" --print -i 'x=arange(3)'
same "-f FILE" "out = [1. 3. 5.]" "$out"
run bash -c "'$JITRUN' --device cpu -f - --print -i 'x=arange(3)' < '$TMP/prog.cj'"
same "-f -" "out = [1. 3. 5.]" "$out"
run bash -c "'$JITRUN' --device cpu -f - -i x=- < '$TMP/prog.cj'"
same "-f - with -i x=-" "jitrun: only one of -f and -i can read standard input ('-'); save the others to files" "$out"
run "$JITRUN" --device cpu -f "$TMP/prog.cj" -i 'x=arange(3)' 'out = x'
same "-f and a program" "jitrun: give the program either as an argument or with -f FILE, not both" "$out"
same "-f and a program exit" 1 "$rc"
run "$JITRUN" --device cpu -f "$TMP/missing.cj" -i 'x=arange(3)'
same "-f missing file" "jitrun: -f $TMP/missing.cj: cannot read the program: No such file or directory" "$out"
same "-f missing file exit" 3 "$rc"
run "$JITRUN" --device cpu -i 'x=arange(3)'
same "no program" "jitrun: no program: give it as an argument, e.g. 'out = sin(x)*5', or with -f FILE" "$out"
printf 'y = x * 2\nout = sinn(y)\n' > "$TMP/bad.cj"
run "$JITRUN" --device cpu -f "$TMP/bad.cj" -i 'x=arange(3)'
same "-f diagnostic names the line" "error: unknown function 'sinn' (line 2)
  out = sinn(y)
        ^~~~
hint: did you mean 'sin'?" "$out"
same "-f diagnostic exit" 2 "$rc"

# ---- colour: on a terminal only, never with NO_COLOR
E=$'\033'
plain="error: unknown function 'sinn'
  out = sinn(x)
        ^~~~
hint: did you mean 'sin'?"
run "$JITRUN" --device cpu -i 'x=arange(3)' 'out = sinn(x)'
same "plain when stderr is not a terminal" "$plain" "$out"
if command -v script > /dev/null; then
  run script -qec "env -u NO_COLOR '$JITRUN' --device cpu -i 'x=arange(3)' 'out = sinn(x)'" /dev/null
  same "colour on a terminal" "${E}[1;31merror:${E}[0m ${E}[1munknown function 'sinn'${E}[0m
  out = sinn(x)
        ${E}[1;32m^~~~${E}[0m
${E}[1;36mhint:${E}[0m did you mean 'sin'?" "${out//$'\r'/}"
  same "colour on a terminal: exit code kept" 2 "$rc"
  run script -qec "NO_COLOR=1 '$JITRUN' --device cpu -i 'x=arange(3)' 'out = sinn(x)'" /dev/null
  same "NO_COLOR on a terminal" "$plain" "${out//$'\r'/}"
  run script -qec "env -u NO_COLOR '$JITCACHE' compile -i x=float32 'out = sinn(x)'" /dev/null
  [[ "${out//$'\r'/}" == "${E}[1;31merror:${E}[0m"* ]] || fail "jitcache colours on a terminal" "got: $out"
else
  fail "the terminal checks" "'script' (util-linux's bsdutils) is not installed: it gives jitrun a terminal"
fi

# ---- jitcache with CUJIT_CACHE=0: a state, not an error
for cmd in list verify clear; do
  run env CUJIT_CACHE=0 "$JITCACHE" $cmd
  same "CUJIT_CACHE=0 jitcache $cmd" "cache disabled by CUJIT_CACHE=0: nothing to $cmd" "$out"
  same "CUJIT_CACHE=0 jitcache $cmd exit" 0 "$rc"
done
run env CUJIT_CACHE=off "$JITCACHE" prune --max-size 1M
same "CUJIT_CACHE=off jitcache prune" "cache disabled by CUJIT_CACHE=off: nothing to prune" "$out"
run env CUJIT_CACHE=0 "$JITCACHE" stats
same "CUJIT_CACHE=0 jitcache stats (first line)" "cache disabled by CUJIT_CACHE=0" "${out%%$'\n'*}"
same "CUJIT_CACHE=0 jitcache stats exit" 0 "$rc"
run env CUJIT_CACHE=0 "$JITCACHE" compile -i x=float32 'out = x * 2'
same "CUJIT_CACHE=0 jitcache compile (last line)" "cache disabled by CUJIT_CACHE=0: compiled, nothing stored" "${out##*$'\n'}"
same "CUJIT_CACHE=0 jitcache compile exit" 0 "$rc"
[ -e "$CUJIT_CACHE_DIR" ] && [ -n "$(find "$CUJIT_CACHE_DIR" -type f)" ] && fail "CUJIT_CACHE=0 stored nothing"

if [ "$fails" != 0 ]; then
  echo "$fails check(s) failed"
  exit 1
fi
echo "all tool I/O checks passed"
