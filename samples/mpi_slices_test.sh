#!/usr/bin/env bash
# sample_mpi_slices under mpirun with 2 ranks. Without a GPU the ranks run the
# CPU evaluator. With one, this is the deployment flow of docs/deploy.md: one
# small run records the kernels the job needs (CUJIT_RECORD), `jitcache
# precompile` + `export` pack them, `import` fills a fresh cache folder, and
# the 2-rank run over that folder must compile nothing (--expect-no-compiles),
# where the same run over an empty cache must fail that check (exit 2).
# Without a GPU the option must be refused (exit 3): the CPU compiles nothing.
# Usage: mpi_slices_test.sh MPIEXEC SAMPLE JITCACHE
set -euo pipefail
MPIEXEC="$1" SAMPLE="$2" JITCACHE="$3"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
args=(-np 2 --oversubscribe)
[ "$(id -u)" = 0 ] && args+=(--allow-run-as-root)
# Shared memory between the ranks without ptrace-based single copy (refused in containers).
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  export CUJIT_CACHE_DIR="$TMP/recorded"
  CUJIT_RECORD="$TMP/job.toml" "$MPIEXEC" "${args[@]/-np 2/-np 1}" "$SAMPLE" --n 4096
  # The recorded manifest compiles again into any cache (here: all hits); a cujit
  # built without toml++ cannot read manifests, and the recorded cache is exported as it is.
  if ! out=$("$JITCACHE" precompile "$TMP/job.toml" 2>&1); then
    [[ "$out" == *"without toml++"* ]] || { echo "$out"; exit 1; }
    echo "mpi_slices_test: this cujit reads no manifests (no toml++); exporting the recorded cache as it is"
  fi
  "$JITCACHE" export "$TMP/job.cjx"
  # The check can fail: over an empty cache the ranks compile, and the run says so.
  rc=0
  CUJIT_CACHE_DIR="$TMP/empty" "$MPIEXEC" "${args[@]}" "$SAMPLE" --n 4096 --expect-no-compiles || rc=$?
  [ "$rc" = 2 ] || { echo "mpi_slices_test: over an empty cache --expect-no-compiles gave exit $rc, want 2"; exit 1; }
  export CUJIT_CACHE_DIR="$TMP/imported"
  "$JITCACHE" import "$TMP/job.cjx"
  "$MPIEXEC" "${args[@]}" "$SAMPLE" --n $((1 << 22)) --expect-no-compiles
else
  export CUJIT_CACHE_DIR="$TMP/cache"
  "$MPIEXEC" "${args[@]}" "$SAMPLE" --n 1000000
  rc=0
  out=$("$MPIEXEC" "${args[@]}" "$SAMPLE" --n 1000 --expect-no-compiles 2>&1) || rc=$?
  if [ "$rc" != 3 ] || [[ "$out" != *"--expect-no-compiles needs every rank on a GPU"* ]]; then
    echo "mpi_slices_test: on the CPU --expect-no-compiles gave exit $rc, want 3 and a refusal:"; echo "$out"; exit 1
  fi
fi
echo "mpi_slices_test: ok"
