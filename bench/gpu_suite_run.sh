#!/usr/bin/env bash
# The whole CTest suite on one GPU, SLEEF and a de_DE locale carried in; summary of skips.
set -uo pipefail
D=${DEPS:-$PWD/../.devdeps}  # headers, SLEEF, Highway and a locale the machine lacks
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; echo "commit ${COMMIT:-?}"; python3 -c 'import numpy; print("numpy", numpy.__version__)'; command -v mpirun clang++ || true; } > $OUT/machine.txt
export LD_LIBRARY_PATH=$D/sleef:$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} LOCPATH=$D/locale
# LOCPATH hides the machine's locales: C.UTF-8 is built into glibc. Consumers find the carried Highway.
export LC_ALL=C.UTF-8 LANG=C.UTF-8 CMAKE_PREFIX_PATH=$D
export CUJIT_CACHE_DIR=/tmp/cjsuite
B=/tmp/bs
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build $B -j16 > /tmp/build.log 2>&1 || { grep -E 'error' -A5 /tmp/build.log | head -60; exit 1; }
t build ok
timeout ${CT_S:-450} ctest --test-dir $B -j10 --output-on-failure --timeout 400 --output-junit $OUT/junit.xml > $OUT/ctest.log 2>&1; t "ctest exit $?"
python3 tools/ctest_summary.py gpu=$B:$OUT/junit.xml >> $L 2>&1
tail -25 $OUT/ctest.log | grep -v "^$" >> $L
cat $L
