#!/usr/bin/env bash
# Referee throughput benchmark: tournaments between two instant Rust bots.
# Prints arena's own summary line (games/s, arena CPU per move, peak memory)
# for each setting. Not a test: figures depend on the machine and its load.
#
#   tests/bench.sh            # the settings quoted in the README
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -q
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bot="$PWD/target/release/random-bot"

run() { # label games_per_pair concurrency restart transcripts [sandbox]
  cat > "$work/t.toml" <<TOML
game = "number-snatch"
seed = 1
games_per_pair = $2
move_timeout = "5s"
concurrency = $3
restart = "$4"
transcripts = $5
sandbox = ${6:-true}
[[bot]]
name = "a"
command = ["$bot", "--quiet"]
[[bot]]
name = "b"
command = ["$bot", "--quiet"]
TOML
  printf '%-52s ' "$1:"
  ./target/release/arena run "$work/t.toml" --fresh --out "$work/out" 2>/dev/null | grep '^played' | tee "$work/last"
}

# Games per second of the last run.
rate() { sed -E 's/.*: ([0-9.]+) games\/s.*/\1/' "$work/last"; }

run "kept alive, 1 at a time, 2000 games" 2000 1 after-doubt false
run "kept alive, 2 at a time, 2000 games" 2000 2 after-doubt false
run "kept alive, 1 at a time, 20000 games" 20000 1 after-doubt false
off1=$(rate)
run "kept alive, 1 at a time, 20000 games, transcripts" 20000 1 after-doubt true
on1=$(rate)
run "kept alive, 1 at a time, 20000 games, no sandbox" 20000 1 after-doubt false false
bare1=$(rate)
run "kept alive, 2 at a time, 200000 games" 200000 2 after-doubt false
off2=$(rate)
run "kept alive, 2 at a time, 200000 games, no sandbox" 200000 2 after-doubt false false
bare2=$(rate)
awk -v box1="$off1" -v bare1="$bare1" -v box2="$off2" -v bare2="$bare2" 'BEGIN {
  printf "kept alive in a box: %.0f%% of the speed unsandboxed (1 at a time), %.0f%% (2 at a time)\n", 100 * box1 / bare1, 100 * box2 / bare2
}'
run "kept alive, 2 at a time, 200000 games, transcripts" 200000 2 after-doubt true
on2=$(rate)
awk -v on1="$on1" -v off1="$off1" -v on2="$on2" -v off2="$off2" 'BEGIN {
  printf "transcripts kept (the default): %.0f%% of the speed without them (1 at a time), %.0f%% (2 at a time)\n", 100 * on1 / off1, 100 * on2 / off2
}'
run "process per game, 1 at a time, 500 games" 500 1 every-game false
sandboxed=$(rate)
run "process per game, 1 at a time, 500 games, no sandbox" 500 1 every-game false false
bare=$(rate)
run "process per game, 2 at a time, 500 games" 500 2 every-game false
run "process per game, 2 at a time, 500 games, no sandbox" 500 2 every-game false false
# Each game starts two bots, one after the other when one game runs at a time.
awk -v with="$sandboxed" -v without="$bare" 'BEGIN {
  printf "sandbox cost per bot start (1 at a time): %.3f ms\n", (1000 / with - 1000 / without) / 2
}'
