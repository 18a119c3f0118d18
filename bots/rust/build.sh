#!/bin/sh
# Builds the Rust bots (random-bot and strong-bot) into the workspace's
# target/release, as tournaments/league.toml's `build` asks. Where cargo is
# not to be found (`arena build`'s box, which does not show rustup's
# toolchains; the image of examples/image/, which built them in its first
# stage), the programs `cargo build --release` built with arena are kept.
set -eu
cd "$(dirname "$0")"
if command -v cargo >/dev/null 2>&1; then
  exec cargo build --release --locked -p arena-bots
fi
for program in random-bot strong-bot; do
  if [ ! -x "../../target/release/$program" ]; then
    echo "$(pwd)/build.sh: cargo is not to be found here (not installed, or outside arena build's box) and ../../target/release/$program is not built; run cargo build --release in the workspace" >&2
    exit 1
  fi
done
echo "cargo is not to be found here: keeping the programs built in target/release"
