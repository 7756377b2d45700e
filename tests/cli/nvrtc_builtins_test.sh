#!/usr/bin/env bash
# A toolkit installed from NVIDIA's runfile is not in the loader cache: NVRTC's
# own dlopen of libnvrtc-builtins then fails unless cujit loads it first from
# libnvrtc's folder. Where the loader cache already lacks libnvrtc-builtins (a
# runfile install, as in a fresh machine), the compile runs as it is; else the
# cache is hidden (an empty /etc/ld.so.cache in a private mount namespace: as
# root, or in a user namespace). Reports "skipped" (77) only where the cache
# holds NVRTC and neither namespace can be made.
# Usage: nvrtc_builtins_test.sh path/to/jitrun
set -u
JITRUN="$1"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
compile='"$0" --emit cubin --arch sm_80 -i "x=rand(4)" -o "$1/k.cubin" "out = x*2"'
if ! ldconfig -p 2>/dev/null | grep -q 'libnvrtc-builtins'; then
  how="the loader cache has no libnvrtc-builtins here"
  out=$(sh -c "$compile" "$JITRUN" "$TMP" 2>&1)
elif command -v unshare >/dev/null && [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
  how="the loader cache hidden in a mount namespace"
  out=$(unshare -m sh -c "mount --bind /dev/null /etc/ld.so.cache && $compile" "$JITRUN" "$TMP" 2>&1)
elif command -v unshare >/dev/null && unshare -rm true 2>/dev/null; then
  how="the loader cache hidden in a user and mount namespace"
  out=$(unshare -rm sh -c "mount --bind /dev/null /etc/ld.so.cache && $compile" "$JITRUN" "$TMP" 2>&1)
else
  echo "skipped: libnvrtc-builtins is in the loader cache, and no mount namespace can hide it (needs root or user namespaces)"
  exit 77
fi
rc=$?
if [ $rc != 0 ] || [ "$(head -c 4 "$TMP/k.cubin" 2>/dev/null | od -An -c | tr -d ' ')" != '177ELF' ]; then
  echo "FAIL: compile without the loader cache: exit $rc"
  echo "$out"
  exit 1
fi
echo "ok: NVRTC found its builtins without the loader cache ($how)"
