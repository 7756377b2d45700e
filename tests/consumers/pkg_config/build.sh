#!/usr/bin/env bash
# An application built with pkg-config against an installed cujit, as a Makefile would.
# Usage: build.sh PREFIX BINARY_DIR CXX...
set -euo pipefail
prefix="$1" out="$2"
shift 2
here="$(cd "$(dirname "$0")" && pwd)"
pc=$(find "$prefix" -name cujit.pc -path '*/pkgconfig/*' | head -1)
[ -n "$pc" ] || { echo "no cujit.pc under $prefix"; exit 1; }
export PKG_CONFIG_PATH="$(dirname "$pc")"
pkg-config --print-errors --exists 'cujit >= 0.1'
echo "cujit $(pkg-config --modversion cujit): $(pkg-config --cflags --libs cujit)"
rm -rf "$out" && mkdir -p "$out"
"$@" -std=c++17 -o "$out/app" "$here/../app.cpp" $(pkg-config --cflags cujit) $(pkg-config --libs cujit)
"$out/app"
