#!/usr/bin/env bash
# End-to-end wall time and peak host memory of the seed documents' example,
# `jitrun -i x=ones((1000,1000,1000)) 'out = x*2'`, for one or two jitrun
# binaries (e.g. main's and this tree's), float32 and float64, warm kernel cache.
# Usage: bench/device_generators.sh OUT.md LABEL=JITRUN [LABEL=JITRUN ...]
# A label ending in "(old syntax)" gets 1000x1000x1000 instead of the tuple.
set -eu
out="$1"; shift
export CUJIT_CACHE_DIR="${CUJIT_CACHE_DIR:-$(mktemp -d)}"
measure() {  # prints: wall seconds, peak RSS in GB
  python3 - "$@" <<'PY'
import resource, subprocess, sys, time
t = time.perf_counter()
r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
wall = time.perf_counter() - t
if r.returncode != 0:
    sys.exit("failed: " + r.stdout)
print("%.2f %.2f" % (wall, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024 / 1e9))
PY
}
{
  echo "| jitrun | dtype | wall s (best of ${REPS:-3}) | peak host RSS GB |"
  echo "|---|---|---:|---:|"
  for spec in "$@"; do
    label="${spec%%=*}"; bin="${spec#*=}"
    shape="(1000,1000,1000)"; [[ "$label" == *"(old syntax)"* ]] && shape="1000x1000x1000"
    "$bin" -i 'x=ones(10)' 'out = x*2' > /dev/null  # warm the kernel cache
    for dt in float32 float64; do
      "$bin" -i "x=ones(10):$dt" 'out = x*2' > /dev/null
      best=""; rss=""
      for r in $(seq "${REPS:-3}"); do
        read -r w m < <(measure "$bin" -i "x=ones($shape):$dt" 'out = x*2')
        if [ -z "$best" ] || awk "BEGIN{exit !($w < $best)}"; then best=$w; fi
        rss=$m
      done
      echo "| $label | $dt | $best | $rss |"
    done
  done
} | tee "$out"
