#!/usr/bin/env bash
# Builds cujit and runs the whole test suite (CTest; GPU tests report "skipped"
# without a GPU), then fuzzes the front end for 60 s where clang is available.
# Builds in build/ (RelWithDebInfo; tools/demo.sh builds in build-demo/).
# Installs missing packages itself.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh
cujit_install_deps yes
cujit_comma_locale  # for the locale test (skipped without one)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDAToolkit_ROOT="$CUDA_DIR"
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"

if command -v clang++ >/dev/null && echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long){return 0;}' |
    clang++ -x c++ -fsanitize=fuzzer - -o /tmp/cujit-fuzzcheck 2>/dev/null; then
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUJIT_BUILD_FUZZ=ON \
    -DCUDAToolkit_ROOT="$CUDA_DIR" >/dev/null
  cmake --build build-fuzz -j"$(nproc)" --target fuzz_frontend fuzz_npy fuzz_manifest
  mkdir -p build-fuzz/corpus build-fuzz/corpus_npy build-fuzz/corpus_manifest
  # Front end (lexer, parser, checker, CPU evaluator), the .npy reader and
  # the precompile-manifest reader, 60 s each.
  ./build-fuzz/tests/fuzz/fuzz_frontend -max_total_time="${CUJIT_FUZZ_SECONDS:-60}" -max_len=512 \
    build-fuzz/corpus tests/fuzz/corpus
  ./build-fuzz/tests/fuzz/fuzz_npy -max_total_time="${CUJIT_FUZZ_SECONDS:-60}" -max_len=4096 build-fuzz/corpus_npy tests/fuzz/corpus_npy
  if [ -f build-fuzz/tests/fuzz/fuzz_manifest ]; then
    ./build-fuzz/tests/fuzz/fuzz_manifest -max_total_time="${CUJIT_FUZZ_SECONDS:-60}" -max_len=2048 build-fuzz/corpus_manifest tests/fuzz/corpus_manifest
  fi
  echo "fuzz: no crash"
else
  echo "fuzz: skipped (clang with libFuzzer is not available)"
fi

# ---- hardening (issue 13): sanitizer builds ---------------------------------
# AddressSanitizer + UndefinedBehaviorSanitizer over the unit, CLI and
# hostile-input tests, then ThreadSanitizer over the concurrency tests (the
# kernel cache's threads and processes). Only the targets those tests need are
# built, at -O1, so both fit CI's time limit. CUJIT_SANITIZERS=0 skips them.
if [ "${CUJIT_SANITIZERS:-1}" != 0 ]; then
  san_flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g" -DCUJIT_BUILD_FUZZ=OFF
             -DCUDAToolkit_ROOT="$CUDA_DIR")
  cmake -S . -B build-asan "${san_flags[@]}" -DCUJIT_SANITIZE=ON >/dev/null
  cmake --build build-asan -j"$(nproc)" --target cujit_tests jitrun jitcache cache_stress
  # halt_on_error: a UBSan finding fails the test instead of scrolling by.
  LSAN_OPTIONS=suppressions="$PWD/tests/lsan.supp" \
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:strict_string_checks=1:allocator_may_return_null=1 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
    ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -R '^(unit|jitrun_cli|jitcache_cli|hostile)$'
  cmake -S . -B build-tsan "${san_flags[@]}" -DCUJIT_SANITIZE_THREAD=ON >/dev/null
  cmake --build build-tsan -j"$(nproc)" --target cujit_thread_tests cache_stress
  TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ctest --test-dir build-tsan --output-on-failure -R '^threads$'
  echo "sanitizers: no finding"
fi
