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

# The tests' Python must see NumPy. The distro's python3-numpy serves the
# distro's /usr/bin/python3; where `python3` on PATH is another interpreter
# without NumPy (pyenv, a virtual environment), the tests use the distro's,
# through a python3 link put first on PATH (scripts call `python3`), and CMake
# is told the same (CUJIT_PYTHON for -DPython3_EXECUTABLE).
cujit_python_with_numpy() {
  local bin="$1"
  CUJIT_PYTHON=$(command -v python3 || true)
  if [ -n "$CUJIT_PYTHON" ] && "$CUJIT_PYTHON" -c 'import numpy' 2>/dev/null; then export CUJIT_PYTHON; return 0; fi
  if [ -x /usr/bin/python3 ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
    mkdir -p "$bin"
    ln -sf /usr/bin/python3 "$bin/python3"
    export PATH="$bin:$PATH" CUJIT_PYTHON="$bin/python3"
    echo "cujit: python3 on PATH has no NumPy; the tests use /usr/bin/python3 (python3-numpy)"
    return 0
  fi
  export CUJIT_PYTHON
  echo "cujit: no python3 with NumPy found; the tests that need it fail under CI=true, else report skipped" >&2
}

# cujit_optional_package PACKAGE WHAT CONSEQUENCE: installs PACKAGE when missing;
# when that fails, says so (CI=true: exits 1).
cujit_optional_package() {
  local pkg="$1" what="$2" consequence="$3" sudo=""
  dpkg -s "$pkg" >/dev/null 2>&1 && return 0
  [ "$(id -u)" != 0 ] && command -v sudo >/dev/null && sudo="sudo"
  echo "cujit: installing $pkg for $what"
  if { [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; } && $sudo apt-get update -qq >/dev/null 2>&1 &&
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$pkg" >/dev/null 2>&1; then
    return 0
  fi
  if [ "${CI:-}" = true ]; then
    echo "error: CI=true and $pkg could not be installed: the tests of $what need it (apt-get install $pkg)" >&2
    exit 1
  fi
  echo "cujit: $pkg could not be installed; $consequence"
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
  local want=(cmake make g++ pkg-config libfmt-dev catch2 libcli11-dev libxxhash-dev libdlpack-dev libhwy-dev help2man)
  # The tests also run the MPI sample (2 ranks on the CPU), and NumPy makes
  # reference data (samples/inplace_seed, tests/data's generators).
  [ "$want_clang" = yes ] && want+=(libopenmpi-dev openmpi-bin python3 python3-numpy)
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
  # toml++ (precompile manifests), SLEEF (the CPU evaluator's vector math,
  # dlopened) and clang (the fuzz targets) are optional for building cujit: a
  # package that cannot be installed is a warning here, and a failure with
  # CI=true, where the tests that need it must run.
  cujit_optional_package libtomlplusplus-dev "precompile manifests" \
    "building without precompile manifests (their tests report skipped)"
  cujit_optional_package libsleef3 "vectorized CPU math" \
    "the CPU path uses the C library's math functions (the SLEEF tests report skipped)"
  [ "$want_clang" = yes ] && cujit_optional_package clang "the fuzz targets" "fuzzing is left out"
  if [ "$want_clang" = yes ] && command -v clang++ >/dev/null; then
    # libFuzzer's runtime ships separately on some releases.
    if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long){return 0;}' |
        clang++ -x c++ -fsanitize=fuzzer - -o /tmp/cujit-fuzzcheck 2>/dev/null; then
      local sudo=""; [ "$(id -u)" != 0 ] && sudo="sudo"
      DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libclang-rt-dev >/dev/null 2>&1 ||
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "libclang-rt-$(clang++ --version | sed -n 's/.*version \([0-9]*\).*/\1/p' | head -1)-dev" >/dev/null 2>&1 ||
        echo "cujit: libFuzzer's runtime (libclang-rt-dev) could not be installed"
    fi
  fi
}
