#!/usr/bin/env bash
# Builds cujit (Release) and runs every benchmark, writing the tables to
# bench/results/ (or $OUT when set). Needs a GPU for bench_gpu and peers.py.
#   bash bench/run_all.sh [extra cmake args...]
set -uo pipefail
cd "$(dirname "$0")/.."
RESULTS="${OUT:-bench/results}"
mkdir -p "$RESULTS"
cmake -S . -B build-bench -DCMAKE_BUILD_TYPE=Release -DCUJIT_BUILD_TESTS=OFF "$@" > "$RESULTS/cmake.log" 2>&1 || { tail -30 "$RESULTS/cmake.log"; exit 1; }
cmake --build build-bench -j"$(nproc)" --target bench_compile_latency bench_gpu bench_layouts bench_first_call bench_cpu jitrun > "$RESULTS/build.log" 2>&1 || { grep -A5 error "$RESULTS/build.log" | head -40; exit 1; }
export CUJIT_CACHE_DIR=$(mktemp -d)
./build-bench/bench/bench_compile_latency 15 | tee "$RESULTS/compile_latency.md"
echo
./build-bench/bench/bench_gpu | tee "$RESULTS/gpu.md"
echo
if python3 -c "import cupy, torch" 2>/dev/null; then
  python3 bench/peers.py | tee "$RESULTS/peers.md"
  # A fresh process's first call (cold and disk-cache hit) beside CuPy's.
  python3 bench/first_call.py ./build-bench/bench/bench_first_call 7 | tee "$RESULTS/first_call.md"
  # Every layout against the ceiling and the peers: layouts.md and one PNG per case.
  PYTHONUNBUFFERED=1 python3 bench/layouts.py ./build-bench/bench/bench_layouts "$RESULTS"
fi
if python3 -c "import numexpr, numpy, matplotlib" 2>/dev/null; then
  python3 bench/cpu_peers.py --bench-cpu build-bench/bench/bench_cpu --out "$RESULTS/cpu.md" --plot "$RESULTS/cpu.png"
fi
