#!/usr/bin/env bash
# Builds cujit and runs the whole test suite (CTest; GPU tests report "skipped"
# without a GPU), then fuzzes the front end for 60 s where clang is available.
# Builds in build/ (RelWithDebInfo; tools/demo.sh builds in build-demo/).
# Installs missing packages itself.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh
cujit_install_deps yes
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDAToolkit_ROOT="$CUDA_DIR"
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"

if command -v clang++ >/dev/null && echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long){return 0;}' |
    clang++ -x c++ -fsanitize=fuzzer - -o /tmp/cujit-fuzzcheck 2>/dev/null; then
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUJIT_BUILD_FUZZ=ON \
    -DCUDAToolkit_ROOT="$CUDA_DIR" >/dev/null
  cmake --build build-fuzz -j"$(nproc)" --target fuzz_frontend fuzz_npy
  mkdir -p build-fuzz/corpus build-fuzz/corpus_npy
  # Front end (lexer, parser, checker, CPU evaluator) for 60 s, then the .npy reader for 20 s.
  ./build-fuzz/tests/fuzz/fuzz_frontend -max_total_time="${CUJIT_FUZZ_SECONDS:-60}" -max_len=512 \
    build-fuzz/corpus tests/fuzz/corpus
  ./build-fuzz/tests/fuzz/fuzz_npy -max_total_time=20 -max_len=4096 build-fuzz/corpus_npy tests/fuzz/corpus_npy
  echo "fuzz: no crash"
else
  echo "fuzz: skipped (clang with libFuzzer is not available)"
fi
