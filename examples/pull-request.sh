#!/usr/bin/env bash
# The gauntlet of a pull request's bots (examples/pull-request.yml), run from
# the root of the pull request's checkout with the base commit's history:
#
#   examples/pull-request.sh BASE
#
# finds the bots of the league file whose fingerprint (`arena bots`) the
# checkout adds or changes compared with the commit BASE, builds each with
# the `build` command of its [[bot]] (`arena build`, in a box), checks it
# as the league runs it (`arena check --league`), plays the gauntlet of
# them all against the rest of the league (`arena gauntlet --league
# --bot`), and writes the Markdown of the pull request's comment. What
# widens a box (the sandbox settings, read_paths, build_network) comes from
# the league file at BASE (`--sandbox-from`): a pull request that changes
# them is told so and played without the change. Exit status 1 when a bot
# fails to build or fails a check, or the gauntlet cannot be played; the
# comment says which and why.
#
# ARENA (default target/release/arena) and LEAGUE (default
# tournaments/league.toml) choose the binary and the league file; RESULTS
# (default results/pull-request) the gauntlet's folder; COMMENT (default
# RESULTS/comment.md) where the comment goes. The comment's first line is
# the marker the posting workflow finds it by.
set -euo pipefail
arena=${ARENA:-target/release/arena}
league=${LEAGUE:-tournaments/league.toml}
results=${RESULTS:-results/pull-request}
comment=${COMMENT:-$results/comment.md}
marker='<!-- arena bot gauntlet -->'
if [ $# != 1 ]; then
  sed -n '2,20p' "$0" >&2
  exit 2
fi
base=$1
mkdir -p "$results" "$(dirname "$comment")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0

# What a reader sees of a command's output: HTML-escaped (a bot's words
# cannot open a tag or end the block), at most 60 lines.
preformatted() {
  local lines
  lines=$(wc -l <"$1")
  echo '<pre>'
  head -n 60 "$1" | sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'
  if [ "$lines" -gt 60 ]; then echo "… ($((lines - 60)) more lines)"; fi
  echo '</pre>'
}

# A bot name in a Markdown table cell (names may not hold control
# characters; `|` and `<` would break the table or open a tag).
cell() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/|/\\|/g' <<<"$1"; }

{
  echo "$marker"
  echo "### Bot gauntlet"
  echo
} >"$comment"

# The league file at the base commit and here, as `FINGERPRINT NAME` lines.
mkdir -p "$work/base"
git archive --format=tar "$base" | tar -x -C "$work/base"
: >"$work/base.bots"
if [ -f "$work/base/$league" ]; then
  "$arena" bots "$work/base/$league" >"$work/base.bots" 2>"$work/base.err" || {
    echo "The league file at the base commit (\`$base\`) does not load, so every bot counts as new:" >>"$comment"
    preformatted "$work/base.err" >>"$comment"
    : >"$work/base.bots"
  }
fi
# The boxes the base commit's file gives, whatever this checkout's says.
sandbox_from=()
if [ -f "$work/base/$league" ] && [ -s "$work/base.bots" ]; then
  sandbox_from=(--sandbox-from "$work/base/$league")
else
  echo "The base commit has no league file that loads, so this pull request's own sandbox settings are used." >>"$comment"
  echo >>"$comment"
fi
if ! "$arena" bots "$league" >"$work/head.bots" 2>"$work/head.err"; then
  {
    echo "The league file \`$league\` does not load:"
    preformatted "$work/head.err"
  } >>"$comment"
  exit 1
fi

added=()
changed=()
while read -r fingerprint name; do
  was=$(awk -v name="$name" '$2 == name { print $1 }' "$work/base.bots")
  if [ -z "$was" ]; then
    added+=("$name")
  elif [ "$was" != "$fingerprint" ]; then
    changed+=("$name")
  fi
done <"$work/head.bots"
removed=()
while read -r _ name; do
  awk -v name="$name" '$2 == name { found = 1 } END { exit !found }' "$work/head.bots" || removed+=("$name")
done <"$work/base.bots"

if [ ${#added[@]} = 0 ] && [ ${#changed[@]} = 0 ]; then
  {
    echo "No bot of \`$league\` is added or changed by this pull request (their fingerprints are those of \`${base:0:12}\`): nothing to play."
    if [ ${#removed[@]} -gt 0 ]; then
      echo
      echo "Removed from the league: $(printf "\`%s\` " "${removed[@]}")"
    fi
  } >>"$comment"
  cat "$comment"
  exit 0
fi

# Build, then check, each new bot.
declare -A build_result check_result
challengers=()
details=()
for name in "${added[@]}" "${changed[@]}"; do
  if "$arena" build "$league" --bot "$name" "${sandbox_from[@]}" >"$work/$name.build" 2>&1; then
    if grep -q "^built " "$work/$name.build"; then build_result[$name]=built; else build_result[$name]="—"; fi
  else
    build_result[$name]=failed
    check_result[$name]="not run"
    failed=1
    details+=("build of \`$name\`"$'\t'"$work/$name.build")
    continue
  fi
  if "$arena" check --league "$league" --bot "$name" "${sandbox_from[@]}" >"$work/$name.check" 2>&1; then
    check_result[$name]=passed
  else
    check_result[$name]=failed
    failed=1
    details+=("\`arena check\` of \`$name\`"$'\t'"$work/$name.check")
  fi
  challengers+=("$name")
done

{
  echo "| bot | | fingerprint | build | \`arena check\` |"
  echo "|---|---|---|---|---|"
  for name in "${added[@]}" "${changed[@]}"; do
    fingerprint=$(awk -v name="$name" '$2 == name { print substr($1, 1, 12) }' "$work/head.bots")
    was=$(awk -v name="$name" '$2 == name { print substr($1, 1, 12) }' "$work/base.bots")
    if [ -n "$was" ]; then what="changed (was \`$was\`)"; else what=added; fi
    echo "| $(cell "$name") | $what | \`$fingerprint\` | ${build_result[$name]} | ${check_result[$name]} |"
  done
  if [ ${#removed[@]} -gt 0 ]; then
    echo
    echo "Removed from the league: $(printf "\`%s\` " "${removed[@]}")"
  fi
  echo
} >>"$comment"

# The gauntlet: every bot that built against the rest of the league.
if [ ${#challengers[@]} -gt 0 ]; then
  bots=()
  for name in "${challengers[@]}"; do bots+=(--bot "$name"); done
  if "$arena" gauntlet --league "$league" "${bots[@]}" "${sandbox_from[@]}" --out "$results/gauntlet" --fresh \
    >"$work/gauntlet" 2>"$work/gauntlet.err"; then
    {
      echo "#### Against the league"
      echo
      # The standings and the challengers' lines, without the run's
      # progress and sandbox lines.
      sed -n '/^rank /,$p' "$work/gauntlet" | sed '/^results: /,$d' >"$work/standings"
      preformatted "$work/standings"
    } >>"$comment"
  else
    failed=1
    details+=("the gauntlet"$'\t'"$work/gauntlet.err")
    echo "The gauntlet could not be played (below)." >>"$comment"
  fi
fi

# What the pull request changed of the boxes, said by arena as it ran
# with the base's (the same lines from each command, said once).
cat "$work"/*.build "$work"/*.check "$work/gauntlet.err" 2>/dev/null \
  | sed -n 's/^arena: warning: sandbox-from [^:]*: //p' | sort -u >"$work/widened"
if [ -s "$work/widened" ]; then
  {
    echo
    echo "#### Sandbox settings not taken"
    echo
    echo "This pull request changes what a bot's box may reach; it was built and played with the base commit's settings instead (a maintainer changes them on the base branch):"
    echo
    preformatted "$work/widened"
  } >>"$comment"
fi

for detail in "${details[@]}"; do
  title=${detail%%$'\t'*}
  file=${detail#*$'\t'}
  {
    echo
    echo "<details><summary>$title</summary>"
    echo
    preformatted "$file"
    echo "</details>"
  } >>"$comment"
done
cat "$comment"
exit "$failed"
