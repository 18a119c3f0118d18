#!/usr/bin/env bash
# How strong is strong-bot? For each game, from the rule books' defaults:
#   strong-bot vs random-bot, GAMES games (2,000: seats alternate, so 1,000
#   in each seat), and strong-bot vs itself, SELF_GAMES games (200),
# with `arena match --seed 1`, results in a temporary folder. Prints the
# strong bot's wins/draws/losses per matchup and per seat, from games.csv.
# A measurement, not a test: it fails only if arena or a bot does.
#
#   bots/measure.sh                 # the figures in bots/README.md
#   GAMES=200 SELF_GAMES=20 bots/measure.sh
set -euo pipefail
cd "$(dirname "$0")/.."
games=${GAMES:-2000}
self_games=${SELF_GAMES:-200}

cargo build --release -q
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
arena=./target/release/arena
strong=target/release/strong-bot
random=target/release/random-bot

for game in number-snatch numbers-war number-warriors number-claim number-duel; do
  "$arena" match "$game" "$strong" "$random" --name1 strong --name2 random \
    --games "$games" --seed 1 --out "$work/$game-random" >/dev/null
  "$arena" match "$game" "$strong" "$strong" --name1 strong --name2 strong-2 \
    --games "$self_games" --seed 1 --out "$work/$game-self" >/dev/null
done

python3 - "$work" <<'PY'
import csv
import sys
from pathlib import Path

work = Path(sys.argv[1])
games = ["number-snatch", "numbers-war", "number-warriors", "number-claim", "number-duel"]


def rows(folder):
    with open(work / folder / "games.csv", newline="") as f:
        return list(csv.DictReader(f))


def percent(part, whole):
    return f"{100 * part / whole:.1f}"


print(f"strong-bot vs random-bot, arena match --seed 1 (strong-bot is seat 1 in odd games)\n")
print("| game | strong-bot's seat | games | wins | draws | losses | win % | forfeits |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
for game in games:
    played = rows(f"{game}-random")
    for seat, label in [("seat1", "1"), ("seat2", "2"), (None, "both")]:
        chosen = [r for r in played if seat is None or r[seat] == "strong"]
        w = sum(r["winner"] == "strong" for r in chosen)
        d = sum(r["outcome"] == "draw" for r in chosen)
        n = len(chosen)
        forfeits = sum(r["reason"] != "normal" for r in chosen)
        print(f"| {game} | {label} | {n} | {w} | {d} | {n - w - d} | {percent(w, n)} | {forfeits} |")

print(f"\nstrong-bot vs strong-bot, arena match --seed 1\n")
print("| game | games | seat 1 wins | draws | seat 2 wins | forfeits |")
print("|---|---:|---:|---:|---:|---:|")
for game in games:
    played = rows(f"{game}-self")
    count = {o: sum(r["outcome"] == o for r in played) for o in ["seat1", "draw", "seat2"]}
    forfeits = sum(r["reason"] != "normal" for r in played)
    print(f"| {game} | {len(played)} | {count['seat1']} | {count['draw']} | {count['seat2']} | {forfeits} |")
PY
