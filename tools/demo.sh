#!/usr/bin/env bash
# Builds cujit and runs a jitrun demo. Installs missing packages itself.
# Its own build folder (build-demo/, Release): tools/test.sh builds build/ (RelWithDebInfo), so
# running one after the other does not rebuild everything. Only the library and jitrun are built.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh
cujit_install_deps
cmake -S . -B build-demo -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT="$CUDA_DIR" \
  -DCUJIT_BUILD_TESTS=OFF -DCUJIT_BUILD_SAMPLES=OFF -DCUJIT_BUILD_BENCH=OFF >/dev/null
cmake --build build-demo -j"$(nproc)" --target jitrun
set -x
./build-demo/tools/jitrun -i x=rand\(1e6\) 'out = sin(x)*5'
./build-demo/tools/jitrun --print -i x=linspace\(0,1,5\) -i k=arange\(5\):int8 't = x*x; y = t + 1; z = k * 100'
./build-demo/tools/jitrun --print -i x=arange\(3x1\) -i y=arange\(4\) 'out = x * 10 + y'
