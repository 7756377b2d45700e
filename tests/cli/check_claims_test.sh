#!/usr/bin/env bash
# tools/check_claims.py fails when a README figure is not in its results file:
# README.md as it is passes; each altered copy (a throughput, a range's end, a
# ratio, a time) fails, naming the figure.
# Usage: check_claims_test.sh PYTHON SOURCE_DIR
set -u
PY="$1" ROOT="$2"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
out=$("$PY" "$ROOT/tools/check_claims.py" "$ROOT" 2>&1) || { echo "FAIL: README.md as it is: $out"; fails=$((fails + 1)); }
altered() {  # altered FROM TO WANT: README with FROM replaced by TO must fail naming WANT
  local from="$1" to="$2" want="$3"
  grep -qF -- "$from" "$ROOT/README.md" || { echo "FAIL: README.md no longer says '$from'"; fails=$((fails + 1)); return; }
  python3 -c 'import sys; s=open(sys.argv[1]).read(); open(sys.argv[2],"w").write(s.replace(sys.argv[3], sys.argv[4], 1))' \
    "$ROOT/README.md" "$TMP/README.md" "$from" "$to"
  local o rc=0
  o=$("$PY" "$ROOT/tools/check_claims.py" "$ROOT" --readme "$TMP/README.md" 2>&1) || rc=$?
  if [ "$rc" != 1 ] || [[ "$o" != *"$want"* ]]; then
    echo "FAIL: '$from' -> '$to' gave exit $rc (want 1) and:"; echo "$o"; echo "  wanted: $want"; fails=$((fails + 1))
  fi
}
altered "4150 GB/s" "4160 GB/s" "'4160' (in \"4160 GB/s\") is in none of bench/results/"
altered "0.67-0.71" "0.67-0.31" "'0.31' (in \"0.67-0.31\")"
altered "(0.978x a device copy)" "(0.99x a device copy)" "'0.99' (in \"0.99x\")"
altered "5.30 ms" "5.20 ms" "'5.20' (in \"5.20 ms\")"
[ "$fails" = 0 ] || { echo "$fails failures"; exit 1; }
echo "check_claims: an altered figure fails, README.md as it is passes"
