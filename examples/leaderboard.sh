#!/usr/bin/env bash
# The steps of a leaderboard job, one subcommand each, so that CI
# (leaderboard.yml), a Kubernetes Indexed Job, a Slurm array and the test
# that checks them (tests/examples.rs) all run the same commands.
#
#   examples/leaderboard.sh build         build the bots that declare a build command
#   examples/leaderboard.sh shard K N     play share K of N into results/shard-K
#   examples/leaderboard.sh merge N       merge the N shards into results/league,
#                                         keeping the rating history of earlier runs
#   examples/leaderboard.sh report        write results/leaderboard.html and summary.md
#
# ARENA (default target/release/arena) and LEAGUE (default
# tournaments/league.toml) choose the binary and the tournament file.
# ARENA_SEED_KEY, the same secret for every shard, keys the seat seeds
# (arena refuses --shard without it, as the shards would not merge).
set -euo pipefail
arena=${ARENA:-target/release/arena}
league=${LEAGUE:-tournaments/league.toml}
results=${RESULTS:-results}

case "${1:-}" in
  build)
    # Each [[bot]] with a `build` command, built where it runs.
    "$arena" build "$league"
    ;;
  shard)
    # A cached shard folder resumes: only games it lacks are played, and a
    # bot whose files changed has its pairings played again.
    "$arena" run "$league" --shard "$2/$3" --out "$results/shard-$2" --quiet
    ;;
  merge)
    shards=()
    for k in $(seq 1 "$2"); do shards+=("$results/shard-$k"); done
    previous=$(mktemp)
    cat "$results/league/history.jsonl" > "$previous" 2>/dev/null || true
    rm -rf "$results/league"
    "$arena" merge --out "$results/league" "${shards[@]}" > /dev/null
    # The merged folder is new each time: its history is the earlier runs'
    # followed by this one.
    cat "$previous" "$results/league/history.jsonl" > "$previous.new"
    mv "$previous.new" "$results/league/history.jsonl"
    rm -f "$previous"
    ;;
  report)
    "$arena" report "$results/league" --html "$results/leaderboard.html" --markdown "$results/summary.md"
    ;;
  *)
    sed -n '2,15p' "$0" >&2
    exit 2
    ;;
esac
