#!/usr/bin/env bash
# Installs what cujit needs from Debian 12 / Ubuntu 24.04 packages, once.
# Sourced by tools/demo.sh and tools/test.sh. Needs root or sudo for apt-get.
set -euo pipefail

cujit_find_cuda() {
  for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda /usr/lib/cuda; do
    if [ -n "$d" ] && [ -f "$d/include/nvrtc.h" ] && [ -f "$d/include/cuda.h" ]; then
      echo "$d"
      return 0
    fi
  done
  return 1
}

cujit_install_deps() {
  local want_clang="${1:-no}"
  if ! CUDA_DIR=$(cujit_find_cuda); then
    cat >&2 <<'MSG'
error: the CUDA toolkit was not found (looked for nvrtc.h and cuda.h in $CUDA_HOME, /usr/local/cuda, /usr/lib/cuda).
cujit compiles kernels with NVRTC, which comes with the toolkit. Install it from
https://developer.nvidia.com/cuda-downloads (the "cuda-toolkit" package; no driver or GPU is needed
to build and run the CPU tests), or set CUDA_HOME to where it is installed, then run this again.
MSG
    exit 1
  fi
  export CUDA_DIR
  export PATH="$CUDA_DIR/bin:$PATH"

  local pkgs=() p sudo=""
  local want=(cmake make g++ pkg-config libfmt-dev catch2 libcli11-dev libxxhash-dev libdlpack-dev help2man)
  # The tests also run the MPI sample (2 ranks on the CPU).
  [ "$want_clang" = yes ] && want+=(libopenmpi-dev openmpi-bin)
  for p in "${want[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || pkgs+=("$p")
  done
  if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null; then sudo="sudo"; fi
  if [ ${#pkgs[@]} -gt 0 ]; then
    echo "cujit: installing missing packages: ${pkgs[*]}"
    if [ "$(id -u)" != 0 ] && [ -z "$sudo" ]; then
      echo "error: cujit needs these packages, and installing them needs root: ${pkgs[*]}" >&2
      echo "run, as root:  apt-get update && apt-get install -y ${pkgs[*]}" >&2
      echo "then run this script again." >&2
      exit 1
    fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${pkgs[@]}"
  fi
  # clang only serves the fuzz target: if it cannot be installed, the tests still run.
  if [ "$want_clang" = yes ] && ! dpkg -s clang >/dev/null 2>&1; then
    echo "cujit: installing clang for the fuzz target"
    { [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; } && $sudo apt-get update -qq >/dev/null 2>&1 &&
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq clang >/dev/null 2>&1 ||
      echo "cujit: clang could not be installed; fuzzing will be skipped"
  fi
  if [ "$want_clang" = yes ] && command -v clang++ >/dev/null; then
    # libFuzzer's runtime ships separately on some releases.
    if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long){return 0;}' |
        clang++ -x c++ -fsanitize=fuzzer - -o /tmp/cujit-fuzzcheck 2>/dev/null; then
      local sudo=""; [ "$(id -u)" != 0 ] && sudo="sudo"
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libclang-rt-dev >/dev/null 2>&1 ||
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "libclang-rt-$(clang++ --version | sed -n 's/.*version \([0-9]*\).*/\1/p' | head -1)-dev" >/dev/null 2>&1 || true
    fi
  fi
}
