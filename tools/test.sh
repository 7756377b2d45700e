#!/usr/bin/env bash
# Builds cujit and runs the whole test suite (CTest; GPU tests report "skipped"
# without a GPU), fuzzes the front end, the .npy reader and the manifest reader
# (60 s each by default) and runs the unit, CLI and hostile-input tests under
# sanitizers, then prints a summary: entries run, passed, failed, skipped and why.
# Builds in build/ (-O2 without debug info; tools/demo.sh builds in build-demo/),
# build-san/ (clang: AddressSanitizer, UBSan and the fuzz targets, one build for
# both) and build-tsan/ (ThreadSanitizer, the concurrency tests' targets only).
# Installs missing packages itself. With CI=true (CI sets it), a dependency
# the set-up installs (toml++, SLEEF, clang with libFuzzer, Open MPI, Python
# with NumPy) that is missing fails the run, and so does a skipped test that
# is not a GPU test.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh
cujit_install_deps yes
cujit_comma_locale  # for the locale test (skipped without one)
cujit_python_with_numpy "$PWD/build/.python"

# Each CTest run writes JUnit; the summary reads them all, also after a failure.
runs=()
status=0
summary() {
  local ci=()
  [ "${CI:-}" = true ] && ci=(--ci)
  python3 tools/ctest_summary.py "${ci[@]}" "${runs[@]}" || status=1
}
trap 'rc=$?; summary; [ "$rc" = 0 ] && rc=$status; exit "$rc"' EXIT
# Each stage's start, with the seconds since the script began: CI's log shows where the time goes.
stage() { echo "==== cujit test stage: $1 (at ${SECONDS} s)"; }
run_ctest() {  # run_ctest STAGE BUILD_DIR CTEST_ARGS...
  local stage="$1" dir="$2"
  shift 2
  runs+=("$stage=$dir:$PWD/$dir/junit.xml")
  ctest --test-dir "$dir" --output-on-failure --output-junit "$PWD/$dir/junit.xml" "$@" || status=1
}

# -O2 as a release, without -g: the tests need no debugger, and debug info is
# about a fifth of the compile time on CI's two cores.
stage "main build"
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -DNDEBUG" \
  -DCUDAToolkit_ROOT="$CUDA_DIR" -DPython3_EXECUTABLE="${CUJIT_PYTHON:-python3}"
cmake --build build -j"$(nproc)"
stage "main tests"
run_ctest main build -j"$(nproc)"

# ---- hardening (issue 13): sanitizer builds and fuzzing ----------------------
# One clang build (build-san/, -O1) with AddressSanitizer and UBSan serves both
# the fuzz targets (the library also carries libFuzzer's coverage hooks) and the
# unit, CLI and hostile-input tests; then ThreadSanitizer over the concurrency
# tests (the kernel cache's threads and processes). Only the targets those tests
# need are built, so all of it fits CI's time limit. CUJIT_SANITIZERS=0 skips
# the sanitizer tests (the fuzzing still runs).
have_fuzzer=no
if command -v clang++ >/dev/null && echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long){return 0;}' |
    clang++ -x c++ -fsanitize=fuzzer - -o /tmp/cujit-fuzzcheck 2>/dev/null; then
  have_fuzzer=yes
elif [ "${CI:-}" = true ]; then
  echo "error: CI=true and clang with libFuzzer is not available: the fuzz targets cannot run (apt-get install clang)" >&2
  exit 1
else
  echo "fuzz: skipped (clang with libFuzzer is not available)"
fi
san_flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" -DCUDAToolkit_ROOT="$CUDA_DIR"
           -DPython3_EXECUTABLE="${CUJIT_PYTHON:-python3}")
san_targets=()
[ "${CUJIT_SANITIZERS:-1}" != 0 ] && san_targets+=(cujit_tests jitrun jitcache cache_stress cujit_fake_cuda)
if [ "$have_fuzzer" = yes ]; then
  stage "sanitizer and fuzz build"
  CC=clang CXX=clang++ cmake -S . -B build-san "${san_flags[@]}" -DCUJIT_SANITIZE=ON -DCUJIT_BUILD_FUZZ=ON >/dev/null
  cmake --build build-san -j"$(nproc)" --target fuzz_frontend fuzz_npy fuzz_manifest "${san_targets[@]}"
  stage "fuzzing"
  mkdir -p build-san/corpus build-san/corpus_npy build-san/corpus_manifest
  # Front end (lexer, parser, checker, CPU evaluator), the .npy reader and
  # the precompile-manifest reader, 60 s each.
  ./build-san/tests/fuzz/fuzz_frontend -max_total_time="${CUJIT_FUZZ_SECONDS:-60}" -max_len=512 \
    build-san/corpus tests/fuzz/corpus
  ./build-san/tests/fuzz/fuzz_npy -max_total_time="${CUJIT_FUZZ_SECONDS:-60}" -max_len=4096 build-san/corpus_npy tests/fuzz/corpus_npy
  if [ -f build-san/tests/fuzz/fuzz_manifest ]; then
    ./build-san/tests/fuzz/fuzz_manifest -max_total_time="${CUJIT_FUZZ_SECONDS:-60}" -max_len=2048 build-san/corpus_manifest tests/fuzz/corpus_manifest
  elif [ "${CI:-}" = true ]; then
    echo "error: CI=true and fuzz_manifest was not built (toml++ missing?)" >&2
    exit 1
  fi
  echo "fuzz: no crash"
elif [ ${#san_targets[@]} -gt 0 ]; then
  # Without clang: the same sanitizers with the default compiler, no fuzzing.
  stage "sanitizer build"
  cmake -S . -B build-san "${san_flags[@]}" -DCUJIT_SANITIZE=ON >/dev/null
  cmake --build build-san -j"$(nproc)" --target "${san_targets[@]}"
fi

if [ "${CUJIT_SANITIZERS:-1}" != 0 ]; then
  stage "ASan and UBSan tests"
  LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp" \
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    run_ctest asan build-san -j"$(nproc)" \
      -R '^(unit|manifest|cache_permissions|jitrun_cli|jitcache_cli|nvrtc_builtins|tools_io_cli|deploy_cli|deploy_flow_cli|no_device_cli|template_dir|hostile)$'
  stage "ThreadSanitizer build and tests"
  cmake -S . -B build-tsan "${san_flags[@]}" -DCUJIT_SANITIZE_THREAD=ON >/dev/null
  cmake --build build-tsan -j"$(nproc)" --target cujit_thread_tests cache_stress
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 run_ctest tsan build-tsan -R '^threads$'
  [ "$status" = 0 ] && echo "sanitizers: no finding"
fi
stage "end"
exit "$status"
