#!/bin/sh
# Builds the Java kit's bot into build/classes with javac (the JDK alone,
# Java 11 or later). Run it from anywhere, as often as you like: it
# rebuilds only when a source file is newer than the last build.
set -eu
cd "$(dirname "$0")"
if ! command -v javac >/dev/null 2>&1; then
  echo "$(pwd)/build.sh: javac is not installed; install a JDK (Debian and Ubuntu: sudo apt-get install default-jdk-headless)" >&2
  exit 1
fi
built=build/classes/RandomBot.class
stale=no
[ -f "$built" ] || stale=yes
for source in *.java; do
  if [ "$source" -nt "$built" ]; then stale=yes; fi
done
if [ "$stale" = no ]; then
  echo "$(pwd)/build/classes is up to date"
  exit 0
fi
# Compiled into a folder of its own and moved into place, so an interrupted
# build never leaves a mix of old and new classes behind.
rm -rf build/classes.partial
mkdir -p build/classes.partial
javac -encoding UTF-8 -Xlint:all -d build/classes.partial ./*.java
rm -rf build/classes
mv build/classes.partial build/classes
echo "built $(pwd)/build/classes"
