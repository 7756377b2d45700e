#!/usr/bin/env bash
# Issue 22's first-day programs (bench/first_day/) built as a user of the
# installed package builds them (find_package(cujit) against the prefix), then
# run on small inputs with their results compared with NumPy's. Without NumPy
# the build is still checked and the test reports skipped (77).
# Usage: first_day.sh PREFIX BINARY SOURCE_DIR PYTHON JOBS [CMAKE_OPTIONS...]
set -eu
prefix=$1 binary=$2 src=$3 python=$4 jobs=$5
shift 5
rm -rf "$binary"
cmake -S "$src/bench/first_day" -B "$binary" -DCMAKE_PREFIX_PATH="$prefix" "$@"
cmake --build "$binary" --parallel "$jobs"
CUJIT_FIRST_DAY_SMALL=1 exec "$python" "$src/bench/first_day/first_day.py" "$binary" 1
