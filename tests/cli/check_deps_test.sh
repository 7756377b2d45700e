#!/usr/bin/env bash
# tools/check_deps.py fails where it should: an include against the pipeline's
# direction (a back end including the API), a folder it does not know, and a
# cycle of parts; and passes on the tree as it is.
#   check_deps_test.sh PYTHON ROOT
set -euo pipefail
py="$1"; root="$2"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$py" "$root/tools/check_deps.py" "$root" >/dev/null
expect_fail() {  # what, pattern
  local out
  if out=$("$py" "$root/tools/check_deps.py" "$work/t" 2>&1); then echo "FAIL: check_deps passed $1"; exit 1; fi
  grep -q -- "$2" <<<"$out" || { echo "FAIL: $1: no '$2' in:"; echo "$out"; exit 1; }
}
fresh() { rm -rf "$work/t"; mkdir -p "$work/t"; cp -r "$root/src" "$root/include" "$root/tools" "$work/t/"; }
fresh; echo '#include "api/pipeline.hpp"' >> "$work/t/src/cpu/thread_pool.cpp"
expect_fail "with cpu including api" "cpu -> api is against the pipeline's direction"
fresh; echo '#include "gpu/launch.hpp"' >> "$work/t/src/plan/shapes.cpp"
expect_fail "with plan including gpu" "plan -> gpu is against the pipeline's direction"
fresh; mkdir -p "$work/t/src/extra"; printf '#include "core/fail.hpp"\n' > "$work/t/src/extra/thing.cpp"
expect_fail "with an unknown folder" "the folder 'extra' is not in check_deps.FOLDERS"
fresh; echo '#include "lang/check.hpp"' >> "$work/t/src/lang/lex.hpp"
expect_fail "with a cycle of parts" "these parts depend on each other"
echo "check_deps_test: 4 breaks caught"
