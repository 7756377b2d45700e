#!/usr/bin/env bash
# A toolkit installed from NVIDIA's runfile is not in the loader cache: NVRTC's
# own dlopen of libnvrtc-builtins then fails unless cujit loads it first from
# libnvrtc's folder. This hides the loader cache (an empty /etc/ld.so.cache in
# a private mount namespace) and compiles a kernel. Needs root and unshare;
# reports "skipped" (77) otherwise.
# Usage: nvrtc_builtins_test.sh path/to/jitrun
set -u
JITRUN="$1"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null ||
    ! unshare -m true 2>/dev/null; then
  echo "skipped: needs root and a mount namespace (unshare -m)"
  exit 77
fi
out=$(unshare -m sh -c 'mount --bind /dev/null /etc/ld.so.cache &&
  "$0" --emit cubin --arch sm_80 -i "x=rand(4)" -o "$1/k.cubin" "out = x*2"' "$JITRUN" "$TMP" 2>&1)
rc=$?
if [ $rc != 0 ] || [ "$(head -c 4 "$TMP/k.cubin" 2>/dev/null | od -An -c | tr -d ' ')" != '177ELF' ]; then
  echo "FAIL: compile without the loader cache: exit $rc"
  echo "$out"
  exit 1
fi
echo "ok: NVRTC found its builtins without the loader cache"
