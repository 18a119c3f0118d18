#!/usr/bin/env bash
# Referee throughput benchmark: tournaments between two instant Rust bots.
# Prints arena's own summary line (games/s, arena CPU per move, peak memory)
# for each setting, then the memory and time of results folders at 2,000
# and 2,000,000 games. Not a test: figures depend on the machine and its
# load.
#
#   tests/bench.sh                 # the settings quoted in docs/performance.md
#   FOLDERS_ONLY=1 tests/bench.sh  # the results folders alone
#   LARGE_BOTS=10 FOLDERS_ONLY=1 tests/bench.sh  # a smaller large folder (90,000 games), to try the script
#   KEEP_WORK=1 ...                # keep the folders made (to profile a command on them)
#   GAME_PROGRAM_ONLY=1 GAMES=200 ROUNDS=1 tests/bench.sh  # only a game program beside the built-in game
#   PROCESS_ONLY=1 SPAWN_GAMES=1000 SPAWN_ROUNDS=3 tests/bench.sh  # only process per game against its floor
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked -q
work=$(mktemp -d)
boxes=()
trap '[ -n "${KEEP_WORK:-}" ] && echo "kept $work" || rm -rf "$work"; for prefix in "${boxes[@]}"; do rmdir "$prefix"-box-* 2>/dev/null || true; done' EXIT
# Open to others: under root a box's bot and game program have only the
# rights others have on host files (mktemp -d makes the folder 700).
chmod 755 "$work"
bot="$PWD/target/release/random-bot"
# A minimal game program in C (Take Ten: ten moves a game, views and legal
# moves the size of Number Snatch's), built here.
cc -O2 -o "$work/take-ten" tests/fixtures/games/bench_game.c
# A minimal referee's cost for a game program's ply: a C referee that
# plays the same games with and without the game program, writes and reads
# and parses nothing, waiting for answers as arena does and then sleeping
# in blocking reads.
cc -O2 -o "$work/referee" tests/fixtures/games/bench_referee.c
# Its children in cgroups of their own, as arena's sandbox boxes each
# program (cgroup v1 cpu, memory and pids, each mounted at
# /sys/fs/cgroup/NAME, where this user may make them), right under this
# shell's cgroup as arena makes its boxes: the prefix of the folders
# PREFIX-box-0, -box-1 and -box-2, one per hierarchy. Elsewhere (cgroup v2,
# a user without the rights) there are none, and the line says so.
for controller in cpu memory pids; do
  own=$(awk -F: -v controller="$controller" '{
    count = split($2, names, ","); for (i = 1; i <= count; i++) if (names[i] == controller) print $3 }' /proc/self/cgroup)
  prefix="/sys/fs/cgroup/$controller${own%/}/bench-referee-$$"
  if [ -n "$own" ] && mkdir "$prefix"-box-{0,1,2} 2>/dev/null; then
    boxes+=("$prefix")
  else
    rmdir "$prefix"-box-* 2>/dev/null || true
    break
  fi
done
if [ "${#boxes[@]}" -ne 3 ]; then
  for prefix in "${boxes[@]}"; do rmdir "$prefix"-box-* 2>/dev/null || true; done
  boxes=()
fi
# Both on one CPU, as arena runs a game's processes with `pin`, where
# taskset is there to do it.
pin=()
if command -v taskset >/dev/null; then pin=(taskset -c 0); fi
# The floor: a bare pipe round trip between two C processes on one CPU (the
# median of single round trips, as floors are quoted).
cc -O2 -o "$work/round-trip" tests/fixtures/pipe_round_trip.c

run() { # label games_per_pair concurrency restart transcripts [sandbox] [game line]
  cat > "$work/t.toml" <<TOML
${7:-game = \"number-snatch\"}
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
# arena's own CPU per move in the last run, in microseconds.
cpu() { sed -E 's/.*own CPU ([0-9.]+) us per move.*/\1/' "$work/last"; }
# The same, in user mode and in the kernel.
user_system() { sed -E 's/.*\(([0-9.]+) user \+ ([0-9.]+) system\).*/\1 \2/' "$work/last"; }

# A game written as a program beside a built-in game of the same size: the
# same bots, kept alive, one game at a time, no transcripts. This machine's
# speed drifts by tens of percent from minute to minute (a shared host), so
# the two runs and the floor's round trip are measured side by side
# ROUNDS times (5 unless told), and each round's difference is set against
# the floor measured in that round: the median of the rounds is the figure.
game_program() {
  local games=${GAMES:-20000} rounds=${ROUNDS:-5}
  local builtin program floor least
  : > "$work/rounds"
  for round in $(seq "$rounds"); do
    run "built-in game (Number Snatch), $games games" "$games" 1 after-doubt false
    builtin="$(cpu) $(user_system)"
    run "game program (C, Take Ten), $games games" "$games" 1 after-doubt false true \
      "game_command = [\"$work/take-ten\"]"
    program="$(cpu) $(user_system)"
    floor=$("${pin[@]}" "$work/round-trip" 200000)
    # Two lines: waiting as arena does, then sleeping in blocking reads.
    least=$("${pin[@]}" "$work/referee" "$work/take-ten" "$games" "${boxes[@]}")
    # The round's line; its figures go to $work/rounds, a line a round:
    # arena's extra, in floor round trips, in user mode and in the kernel;
    # the C referee's in floor round trips, in user mode and in the kernel;
    # sleeping in its reads in floor round trips, and how much longer its
    # games took that way.
    awk -v builtin="$builtin" -v program="$program" -v floor="$floor" -v rounds="$work/rounds" \
      -v as_arena="${least%%$'\n'*}" -v sleeping="${least#*$'\n'}" 'BEGIN {
      split(builtin, b, " "); split(program, p, " "); split(as_arena, a, " "); split(sleeping, s, " ")
      printf "round: %.1f us more per move (%.1f against %.1f; %.1f more in user mode, %.1f in the kernel), %.2f floor round trips of %.2f us; a C referee that parses nothing, waiting as arena does: %.1f us more per ply (%.1f in user mode, %.1f in the kernel), %.2f; sleeping in its reads: %.1f us, %.2f, its games %.0f%% slower\n", p[1] - b[1], p[1], b[1], p[2] - b[2], p[3] - b[3], (p[1] - b[1]) / floor, floor, a[1], a[2], a[3], a[1] / floor, s[1], s[1] / floor, 100 * (s[4] / a[4] - 1)
      print p[1] - b[1], (p[1] - b[1]) / floor, p[2] - b[2], p[3] - b[3], a[1] / floor, a[2], a[3], s[1] / floor, 100 * (s[4] / a[4] - 1) >> rounds
    }'
  done
  # The median, least and most of column $1 of the rounds' figures (awk
  # reads such a line as its first number, the median, where one is due).
  spread() { cut -d' ' -f"$1" "$work/rounds" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)], v[1], v[NR] }'; }
  local boxed="its children in cgroups as boxes are"
  [ "${#boxes[@]}" -gt 0 ] || boxed="no cgroups made here, where arena's boxes may have them: compare with care"
  awk -v rounds="$rounds" -v boxed="$boxed" -v extra="$(spread 1)" -v ratio="$(spread 2)" -v user="$(spread 3)" \
    -v kernel="$(spread 4)" -v lower="$(spread 5)" -v least_user="$(spread 6)" -v least_kernel="$(spread 7)" \
    -v sleeping="$(spread 8)" -v slower="$(spread 9)" 'BEGIN {
    split(ratio, r, " "); split(lower, l, " ")
    printf "a game program costs arena %.1f us of CPU per move more than a built-in game (median of %d rounds; %.1f in user mode, %.1f in the kernel): %.2f floor round trips, the median of the rounds (%.2f to %.2f; target: under 1)\n", extra, rounds, user, kernel, r[1], r[2], r[3]
    printf "a minimal referee (in C, parsing nothing, with two bots and the game program on one CPU, %s) waiting for answers as arena does spends %.2f floor round trips more a ply (%.2f to %.2f; %.1f us in user mode, %.1f in the kernel); sleeping in blocking reads, %.2f, its games then %.0f%% slower\n", boxed, l[1], l[2], l[3], least_user, least_kernel, sleeping, slower
  }'
  # The same program declared random, so dealing privately: every game a
  # setup of its own, the bots kept alive as for public setups.
  local public private
  run "game program, public setups, $games games" "$games" 1 after-doubt false true \
    "game_command = [\"$work/take-ten\"]"
  public=$(rate)
  run "game program, dealing privately, $games games" "$games" 1 after-doubt false true \
    "game_command = [\"$work/take-ten\", \"--random\"]"
  private=$(rate)
  awk -v public="$public" -v private="$private" 'BEGIN {
    printf "a game program that deals privately plays at %.2f of its speed with public setups (%.0f against %.0f games/s; target: at least 0.5)\n", private / public, private, public
  }'
}
# Process per game against its floor: a C referee that starts the same two
# bots for each game and passes them the lines of one of arena's games
# (tests/fixtures/spawn_floor.c), measured beside arena ROUNDS times (3
# unless told), each round's ratios to the floor of that round; the median
# of the rounds is the figure. Boxed, each start is also set against the
# unboxed one: what a box adds to a start on the game's path.
process_per_game() {
  local games=${SPAWN_GAMES:-1000} rounds=${SPAWN_ROUNDS:-3}
  cc -O2 -o "$work/spawn-floor" tests/fixtures/spawn_floor.c
  ./target/release/arena match number-snatch "$bot --quiet" "$bot --quiet" --games 1 --seed 1 \
    --no-sandbox --out "$work/exchange-game" > /dev/null 2>&1
  python3 - "$work/exchange-game/transcripts/game-000001.jsonl" > "$work/exchange" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    entry = json.loads(line)
    if entry["type"] == "send":
        print(f'{entry["seat"]}>' + json.dumps(entry["msg"], separators=(",", ":")))
    elif entry["type"] == "recv":
        print(f'{entry["seat"]}<')
PY
  : > "$work/spawn-rounds"
  local line
  for round in $(seq "$rounds"); do
    line=""
    for at_once in 1 2; do
      local floor
      floor=$("$work/spawn-floor" "$work/exchange" "$games" "$at_once" "$bot" --quiet)
      run "process per game, $at_once at a time, $games games, no sandbox" "$games" "$at_once" every-game false false
      local bare
      bare=$(rate)
      run "process per game, $at_once at a time, $games games" "$games" "$at_once" every-game false
      line="$line $floor $bare $(rate)"
    done
    echo "$line" >> "$work/spawn-rounds"
    awk -v round="$round" '{
      printf "round %d: the floor %.0f and %.0f games/s; unboxed %.2f and %.2f of it (1 and 2 at a time); a box adds %.3f ms a start (1 at a time), %.3f (2 at a time)\n", round, $1, $4, $2 / $1, $5 / $4, (1000 / $3 - 1000 / $2) / 2, 1000 / $6 - 1000 / $5
    }' <<< "$line"
  done
  awk '{
    for (i = 1; i <= 6; i++) v[i, NR] = $i
  } END {
    n = NR
    # The median of a figure over the rounds.
    for (k = 1; k <= 4; k++) {
      m = 0
      for (r = 1; r <= n; r++) {
        if (k == 1) x = v[2, r] / v[1, r]
        if (k == 2) x = v[5, r] / v[4, r]
        if (k == 3) x = (1000 / v[3, r] - 1000 / v[2, r]) / 2
        if (k == 4) x = 1000 / v[6, r] - 1000 / v[5, r]
        f[++m] = x
      }
      for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (f[j] < f[i]) { t = f[i]; f[i] = f[j]; f[j] = t }
      med[k] = f[int((m + 1) / 2)]; lo[k] = f[1]; hi[k] = f[m]
    }
    printf "process per game, unboxed: %.2f of the floor 1 at a time (%.2f to %.2f), %.2f 2 at a time (%.2f to %.2f), the median of %d rounds (target: at least 0.9)\n", med[1], lo[1], hi[1], med[2], lo[2], hi[2], n
    printf "a box adds %.3f ms to a start 1 at a time (%.3f to %.3f), %.3f ms 2 at a time (%.3f to %.3f; the games of each worker take that much longer per start) (target: at most 0.5)\n", med[3], lo[3], hi[3], med[4], lo[4], hi[4]
  }' "$work/spawn-rounds"
}

if [ -n "${PROCESS_ONLY:-}" ]; then
  process_per_game
  exit
fi
if [ -n "${GAME_PROGRAM_ONLY:-}" ]; then
  game_program
  exit
fi

if [ -z "${FOLDERS_ONLY:-}" ]; then
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
process_per_game
game_program
fi

# Results folders at 2,000 and 2,000,000 games: peak memory (and time) of a
# resume, a rerun with nothing to play, `replay --game N`, `report` and
# `merge`, each measured by /usr/bin/time. Memory must not grow with the
# games a folder holds (the 2M figures within twice the 2,000 ones), and
# the report of 2M games must take less time than playing them.
#
# The 2,000-game folder is played: bots a and b, 2,000 games. The
# 2,000,000-game folder (1,980,000: 45 bots, 990 pairings of 2,000 games;
# LARGE_BOTS chooses another number of bots) is made from it rather than
# played (that takes minutes): every bot runs
# the same command, so each has the fingerprint a and b have, and
# tournament.json is the small folder's with 45 bots; games.csv holds the
# small folder's 2,000 rows once per pairing, its bots renamed and its
# games numbered as the larger schedule numbers them, each row naming the
# transcript of the game it copies (the archive is the small folder's:
# what is read per game is the same, its size is not).
unset ARENA_SEED_KEY
large_bots=${LARGE_BOTS:-45}
large_games=$((large_bots * (large_bots - 1) / 2 * 2000))
league() { # file bot-names... (games_per_pair 2000)
  local file=$1; shift
  { printf 'game = "number-snatch"\nseed = 1\ngames_per_pair = 2000\nmove_timeout = "5s"\n'
    for name in "$@"; do
      printf '[[bot]]\nname = "%s"\ncommand = ["%s", "--quiet"]\n' "$name" "$bot"
    done; } > "$file"
}
measure() { # label command...
  local label=$1; shift
  /usr/bin/time -f '%M %e' -o "$work/time" "$@" > "$work/said" 2>&1 || { cat "$work/said"; exit 1; }
  read -r kib seconds < "$work/time"
  printf '%-58s peak %7.1f MiB  %8.2f s\n' "$label:" "$(awk -v kib="$kib" 'BEGIN { print kib / 1024 }')" "$seconds"
  echo "$kib $seconds" > "$work/last-measure"
}
halves() { # folder -> folder.1 folder.2, each half of its rows, sharing the rest
  for half in 1 2; do
    mkdir -p "$1.$half"
    for name in tournament.json transcripts.archive transcripts.index .arena-seed-key; do
      ln -f "$1/$name" "$1.$half/$name"
    done
  done
  python3 - "$1" <<'PY'
import sys
folder = sys.argv[1]
with open(f"{folder}/games.csv") as rows, open(f"{folder}.1/games.csv", "w") as one, open(f"{folder}.2/games.csv", "w") as two:
    header = rows.readline()
    one.write(header); two.write(header)
    for number, row in enumerate(rows):
        (one if number % 2 == 0 else two).write(row)
PY
}
folder_figures() { # label file folder games
  local label=$1 file=$2 folder=$3 games=$4
  head -n -1000 "$folder/games.csv" > "$work/cut" && mv "$work/cut" "$folder/games.csv"
  measure "$label: resume (the last 1,000 games to play)" ./target/release/arena run "$file" --out "$folder" --quiet
  measure "$label: rerun, nothing to play" ./target/release/arena run "$file" --out "$folder" --quiet
  measure "$label: replay --game $games" ./target/release/arena replay "$folder" --game "$games"
  measure "$label: report --html --markdown" ./target/release/arena report "$folder" --html "$work/page.html" --markdown "$work/summary.md"
  cp "$work/last-measure" "$work/report-$games"
  halves "$folder"
  measure "$label: merge of two halves" ./target/release/arena merge --out "$work/merged-$games" "$folder.1" "$folder.2"
  rm -rf "$work/merged-$games" "$folder.1" "$folder.2"
}

league "$work/small.toml" a b
measure "2,000 games: played (1 at a time, transcripts)" ./target/release/arena run "$work/small.toml" --out "$work/small" --quiet
play_seconds=$(cut -d' ' -f2 "$work/last-measure")
league "$work/large.toml" $(seq -f 'b%g' 0 $((large_bots - 1)))
mkdir -p "$work/large"
for name in transcripts.archive transcripts.index .arena-seed-key; do cp "$work/small/$name" "$work/large/$name"; done
python3 - "$work/small" "$work/large" "$large_bots" <<'PY'
import csv, json, sys
small, large, bots = sys.argv[1], sys.argv[2], int(sys.argv[3])
settings = json.load(open(f"{small}/tournament.json"))
template = settings["bots"][0]
names = [f"b{i}" for i in range(bots)]
settings["bots"] = [dict(template, name=name) for name in names]
json.dump(settings, open(f"{large}/tournament.json", "w"), indent=2)
rows = list(csv.DictReader(open(f"{small}/games.csv")))
columns = list(rows[0].keys())
with open(f"{large}/games.csv", "w", newline="") as out:
    writer = csv.DictWriter(out, columns, lineterminator="\n")
    writer.writeheader()
    pairing = 0
    for second in range(1, bots):
        for first in range(second):
            rename = {"a": names[first], "b": names[second], "": ""}
            for row in rows:
                copy = dict(row)
                for column in ("seat1", "seat2", "winner", "forfeiter"):
                    copy[column] = ";".join(rename[name] for name in row[column].split(";")) if row[column] else ""
                copy["pairing"] = f"{names[first]} vs {names[second]}"
                copy["game_index"] = pairing * 2000 + int(row["game_index"])
                writer.writerow(copy)
            pairing += 1
PY
folder_figures "2,000 games" "$work/small.toml" "$work/small" 2000
folder_figures "$large_games games" "$work/large.toml" "$work/large" "$large_games"
awk -v large="$(cut -d' ' -f2 "$work/report-$large_games")" -v played="$play_seconds" -v games="$large_games" 'BEGIN {
  printf "report of %d games: %.1f s; playing them at the 2,000-game rate would take %.0f s\n", games, large, played * games / 2000
}'

