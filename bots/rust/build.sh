#!/bin/sh
# Builds the Rust bots (random-bot and strong-bot) into the workspace's
# target/release, as tournaments/league.toml's `build` asks. Where cargo is
# missing (the image of examples/image/, which built them in its first
# stage), the programs already built are kept.
set -eu
cd "$(dirname "$0")"
if command -v cargo >/dev/null 2>&1; then
  exec cargo build --release --locked -p arena-bots
fi
for program in random-bot strong-bot; do
  if [ ! -x "../../target/release/$program" ]; then
    echo "$(pwd)/build.sh: cargo is not installed and ../../target/release/$program is not built; install Rust (rustup.rs) and run this again" >&2
    exit 1
  fi
done
echo "cargo is not installed: keeping the programs built in target/release"
