#!/usr/bin/env bash
# Runs a command as an unprivileged user when this is root, for the tests of
# what file permissions refuse (root bypasses them): setpriv (util-linux)
# drops to nobody. Not root: the command runs as it is.
# Usage: unprivileged.sh COMMAND ARGS...
set -u
if [ "$(id -u)" != 0 ]; then exec "$@"; fi
if ! command -v setpriv >/dev/null; then
  echo "CUJIT_SKIPPED: running as root and setpriv (util-linux) is missing to drop to an unprivileged user"
  exit 0
fi
if ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$1"; then
  echo "CUJIT_SKIPPED: running as root and the unprivileged user (65534) cannot reach $1"
  exit 0
fi
export HOME=/tmp TMPDIR=/tmp
exec setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all "$@"
