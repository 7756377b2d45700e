#!/usr/bin/env bash
# jitrun against a driver with no device and one whose memory is exhausted
# (the stand-in libcuda.so.1 of fake_libcuda.cpp, found through
# LD_LIBRARY_PATH): exit 4 with a clear message, or the CPU with a notice.
# Usage: nodevice_test.sh path/to/jitrun FAKE_DRIVER_DIR
set -u
JITRUN="$1"
export LD_LIBRARY_PATH="$2${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export CUJIT_CACHE_DIR=$(mktemp -d)
trap 'rm -rf "$CUJIT_CACHE_DIR"' EXIT
unset CUDA_VISIBLE_DEVICES
fails=0

expect() {  # expect MODE CODE SUBSTRING -- ARGS...
  local mode="$1" code="$2" want="$3"
  shift 4
  local out rc
  out=$(CUJIT_FAKE_CUDA="$mode" timeout 120 "$JITRUN" "$@" 2>&1)
  rc=$?
  if [ "$rc" != "$code" ] || [[ "$out" != *"$want"* ]]; then
    echo "FAIL: CUJIT_FAKE_CUDA=$mode jitrun $* -> exit $rc (want $code)"
    echo "  output: $out"
    echo "  wanted: $want"
    fails=$((fails + 1))
  fi
}

expect no-device 4 "jitrun: no CUDA device found" -- --device 0 -i 'x=arange(4)' 'out = x*5'
expect zero-devices 4 "jitrun: no CUDA device found" -- --device 0 -i 'x=arange(4)' 'out = x*5'
expect init-error 4 "jitrun: the CUDA driver cannot be used: cuInit failed: CUDA_ERROR_UNKNOWN (unknown error)" \
  -- --device 0 -i 'x=arange(4)' 'out = x*5'
expect no-device 0 "no usable GPU (no CUDA device found); running on the CPU" -- --print -i 'x=arange(4)' 'out = x*5'
expect no-device 0 "out = [ 0.  5. 10. 15.]" -- --print -i 'x=arange(4)' 'out = x*5'
# A device whose memory is exhausted: uploads and module loads fail cleanly.
expect oom 4 "CUDA_ERROR_OUT_OF_MEMORY (out of memory)" -- --device 0 -i 'x=arange(4)' 'out = x*5'
expect oom 4 "does not exist" -- --device 1 -i 'x=arange(4)' 'out = x*5'
# A kernel that faults (the context is lost), and a launch without memory.
expect fault 4 "jitrun: a kernel faulted on the GPU: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)" \
  -- --device 0 -i 'x=arange(4)' 'out = x*5'
expect fault 4 "restart the process to use the GPU again" -- --device 0 -i 'x=arange(4)' 'out = x*5'
expect launch-oom 4 "cuLaunchKernel failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory) launching kernel '" \
  -- --device 0 -i 'x=arange(4)' 'out = x*5'
# A device with memory pools: -v reports the pool after the run; CUJIT_POOL=0 turns it off;
# a release threshold that is not a byte count is warned about and the run goes on.
expect pool 0 "jitrun: memory pool on device 0: " -- -v --device 0 -i 'x=arange(4)' 'out = x*5'
CUJIT_POOL=0 expect pool 0 "jitrun: memory pool off on device 0: direct allocations" -- -v --device 0 -i 'x=arange(4)' 'out = x*5'
CUJIT_POOL_RELEASE=12x expect pool 0 "cujit: warning: ignoring CUJIT_POOL_RELEASE=12x (expected a number of bytes such as 1073741824 or 1G, or max)" \
  -- --device 0 -i 'x=arange(4)' 'out = x*5'

if [ "$fails" != 0 ]; then
  echo "$fails no-device check(s) failed"
  exit 1
fi
echo "all no-device checks passed"
