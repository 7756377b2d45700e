#!/usr/bin/env bash
# Builds cujit and runs a jitrun demo. Installs missing packages itself.
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/deps.sh
cujit_install_deps
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCUDAToolkit_ROOT="$CUDA_DIR" >/dev/null
cmake --build build -j"$(nproc)" --target jitrun
set -x
./build/tools/jitrun -i x=rand\(1e6\) 'out = sin(x)*5'
./build/tools/jitrun --print -i x=linspace\(0,1,5\) -i k=arange\(5\):int8 't = x*x; y = t + 1; z = k * 100'
./build/tools/jitrun --print -i x=arange\(3x1\) -i y=arange\(4\) 'out = x * 10 + y'
