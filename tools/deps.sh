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

# The locale test (tests/unit/test_locale.cpp) needs a comma-decimal locale
# (de_DE.UTF-8), and checks identifiers under a Latin-1 one (de_DE) where there
# is one; without them it is skipped. Debian and Ubuntu ship the definitions in the
# `locales` package and build only the ones named in /etc/locale.gen.
cujit_comma_locale() {
  if locale -a 2>/dev/null | grep -qiE '^(de_DE|fr_FR)\.utf-?8$' && locale -a 2>/dev/null | grep -qx 'de_DE'; then return 0; fi
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo"; else
      echo "cujit: no comma-decimal locale (de_DE.UTF-8) and no root to generate it: the locale test will be skipped" >&2
      return 0
    fi
  fi
  echo "cujit: generating the de_DE.UTF-8 and de_DE (Latin-1) locales for the locale test"
  { dpkg -s locales >/dev/null 2>&1 || DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq locales >/dev/null 2>&1; } &&
    if [ -f /etc/locale.gen ]; then
      $sudo sed -i -e 's/^# *de_DE.UTF-8 UTF-8/de_DE.UTF-8 UTF-8/' -e 's/^# *de_DE ISO-8859-1/de_DE ISO-8859-1/' /etc/locale.gen &&
        $sudo locale-gen >/dev/null 2>&1
    else
      $sudo locale-gen de_DE.UTF-8 de_DE >/dev/null 2>&1  # Ubuntu without /etc/locale.gen
    fi || echo "cujit: could not generate de_DE.UTF-8: the locale test will be skipped" >&2
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
  # toml++ only serves precompile manifests: without it cujit builds and the
  # manifest features say what to install (universe on Ubuntu 24.04).
  if ! dpkg -s libtomlplusplus-dev >/dev/null 2>&1; then
    echo "cujit: installing libtomlplusplus-dev for precompile manifests"
    { [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; } && $sudo apt-get update -qq >/dev/null 2>&1 &&
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libtomlplusplus-dev >/dev/null 2>&1 ||
      echo "cujit: libtomlplusplus-dev could not be installed; building without precompile manifests"
  fi
  # SLEEF only makes the CPU evaluator's math functions faster (dlopened at
  # run time, nothing links it): without it they use the C library.
  if ! dpkg -s libsleef3 >/dev/null 2>&1; then
    echo "cujit: installing libsleef3 for vectorized CPU math"
    { [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; } && $sudo apt-get update -qq >/dev/null 2>&1 &&
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libsleef3 >/dev/null 2>&1 ||
      echo "cujit: libsleef3 could not be installed; the CPU path uses the C library's math functions"
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
