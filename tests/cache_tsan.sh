#!/bin/sh
# Runs the ThreadSanitizer build of the cache test (tests/cache_tsan.cpp).
# Some kernels randomize the address space more than TSan's shadow memory
# allows ("unexpected memory mapping"); then it runs again with ASLR off.
out=$("$1" 2>&1)
rc=$?
case "$out" in
  *"unexpected memory mapping"*)
    out=$(setarch "$(uname -m)" -R "$1" 2>&1)
    rc=$? ;;
esac
printf '%s\n' "$out"
exit $rc
