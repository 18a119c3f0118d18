#!/bin/sh
# Builds the C++ kit's bot into build/random_bot with g++ (C++17, standard
# library only). Run it from anywhere, as often as you like: it rebuilds
# only when a source file is newer than the program. CXX and CXXFLAGS
# choose another compiler and other flags.
set -eu
cd "$(dirname "$0")"
CXX=${CXX:-g++}
CXXFLAGS=${CXXFLAGS:--std=c++17 -O2 -Wall -Wextra}
if ! command -v "$CXX" >/dev/null 2>&1; then
  echo "$(pwd)/build.sh: $CXX is not installed; install it (Debian and Ubuntu: sudo apt-get install g++)" >&2
  exit 1
fi
program=build/random_bot
stale=no
[ -x "$program" ] || stale=yes
for source in *.cpp *.hpp; do
  if [ "$source" -nt "$program" ]; then stale=yes; fi
done
if [ "$stale" = no ]; then
  echo "$(pwd)/$program is up to date"
  exit 0
fi
mkdir -p build
# Built under another name and moved into place, so an interrupted build
# never leaves a broken program behind.
# shellcheck disable=SC2086 # CXXFLAGS is a list of flags
"$CXX" $CXXFLAGS -o "$program.partial" random_bot.cpp
mv -f "$program.partial" "$program"
echo "built $(pwd)/$program"
