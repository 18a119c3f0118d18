#!/usr/bin/env bash
# Soak test, run by hand (not in CI): faults over a long time.
#
#   tests/soak.sh [KILLS] [GAMES]     # defaults: 30 kills, 2,000,000 games
#
# 1. A tournament is SIGKILLed KILLS times at random moments and resumed each
#    time; its final games.csv (timing columns aside) and standings.csv must
#    equal those of an uninterrupted run of the same file.
# 2. A long run of GAMES games between two instant bots, sampled every two
#    seconds: the most threads and open files arena held, and zombies.
set -euo pipefail
cd "$(dirname "$0")/.."
kills=${1:-30}
games=${2:-2000000}
cargo build --release --locked -q
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
arena="$PWD/target/release/arena"
# One seat-seed key for both results folders (each would otherwise get a
# random key of its own), so that their games compare.
export ARENA_SEED_KEY=soak
bot="$PWD/target/release/random-bot"

league() { # file games_per_pair restart concurrency
  cat > "$1" <<TOML
game = "number-snatch"
seed = 7
games_per_pair = $2
restart = "$3"
concurrency = $4
transcripts = false
[[bot]]
name = "a"
command = ["$bot", "--quiet"]
[[bot]]
name = "b"
command = ["$bot", "--quiet"]
[[bot]]
name = "c"
command = ["$bot", "--quiet"]
TOML
}

# Every column but the timing ones, in order.
stable() { cut -d, -f1-17,21 "$1"; }

league "$work/kill.toml" 2000 after-doubt 2
"$arena" run "$work/kill.toml" --out "$work/reference" > /dev/null 2>&1
for kill in $(seq "$kills"); do
  "$arena" run "$work/kill.toml" --out "$work/killed" > /dev/null 2>&1 &
  sleep "0.$((RANDOM % 9 + 1))"
  kill -9 $! 2>/dev/null || true
  wait $! 2>/dev/null || true
done
"$arena" run "$work/kill.toml" --out "$work/killed" > /dev/null 2>&1
if cmp -s <(stable "$work/reference/games.csv") <(stable "$work/killed/games.csv") \
  && cmp -s "$work/reference/standings.csv" "$work/killed/standings.csv"; then
  echo "after $kills SIGKILLs and resumes: games.csv and standings.csv equal an uninterrupted run's"
else
  echo "after $kills SIGKILLs and resumes: the results DIFFER from an uninterrupted run's" >&2
  exit 1
fi

league "$work/long.toml" $((games / 3 / 2 * 2)) after-doubt 2
"$arena" run "$work/long.toml" --out "$work/long" > "$work/long.out" 2>&1 &
pid=$!
threads=0 files=0 zombies=0
while kill -0 "$pid" 2>/dev/null && [ -e "/proc/$pid/status" ]; do
  now=$(awk '/^Threads:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
  open=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
  dead=$(ps -o stat= --ppid "$pid" 2>/dev/null | grep -c '^Z' || true)
  (( now > threads )) && threads=$now
  (( open > files )) && files=$open
  (( dead > zombies )) && zombies=$dead
  sleep 2
done
wait "$pid"
grep '^played' "$work/long.out"
echo "most threads: $threads, most open files: $files, most zombies at once: $zombies"
