#!/bin/sh
# Builds the Go kit's bot into build/random_bot with the go command (the
# standard library only, Go 1.19 or later). Run it from anywhere, as often
# as you like: it rebuilds only when a source file is newer than the
# program.
set -eu
cd "$(dirname "$0")"
if ! command -v go >/dev/null 2>&1; then
  echo "$(pwd)/build.sh: go is not installed; install it (Debian and Ubuntu: sudo apt-get install golang-go)" >&2
  exit 1
fi
program=build/random_bot
stale=no
[ -x "$program" ] || stale=yes
for source in *.go go.mod; do
  if [ "$source" -nt "$program" ]; then stale=yes; fi
done
if [ "$stale" = no ]; then
  echo "$(pwd)/$program is up to date"
  exit 0
fi
# The go command keeps its build cache under $HOME; without a HOME it
# needs to be told where.
if [ -z "${GOCACHE:-}" ] && [ -z "${HOME:-}" ]; then
  export GOCACHE="${TMPDIR:-/tmp}/go-build-cache"
fi
mkdir -p build
# Built under another name and moved into place, so an interrupted build
# never leaves a broken program behind.
go build -o "$program.partial" .
mv -f "$program.partial" "$program"
echo "built $(pwd)/$program"
