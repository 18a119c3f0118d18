#!/usr/bin/env bash
# The Slurm example on a real Slurm: installs Debian's slurm-wlm and munge
# (as root, non-interactively) where they are missing, starts a cluster of
# one node on this machine (munged, slurmctld and slurmd, each with a
# configuration, key, socket and state of this run's own in a temporary
# folder, on ports of their own), submits examples/slurm-array.sh as the job
# array it is, then the merge and report job the example names, and checks
# that the merged standings, crosstable and games equal those of one
# machine playing the same league with the same seat-seed key. Everything
# it started is stopped when it ends, however it ends.
#
#   tests/slurm.sh          (about 20 s here once installed; .ci/run runs it)
#
# ARENA (default: target/debug/arena, built if missing) is the arena the
# jobs run; KEEP=1 keeps the temporary folder (logs, results) for a look.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
started=$SECONDS
say() { echo "slurm.sh: $*"; }
fail() { echo "slurm.sh: FAILED: $*" >&2; exit 1; }

# --- Slurm and munge from Debian's packages --------------------------------
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
  || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    fail "Slurm is not installed, and installing it needs root and apt-get"
  fi
  say "installing slurm-wlm and munge"
  install() {
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
      slurm-wlm munge >/dev/null
  }
  install || { apt-get update >/dev/null && install; } || fail "apt-get could not install slurm-wlm and munge"
fi
[ "$(id -u)" = 0 ] || fail "the cluster's daemons run as root here: run as root"

# --- the arena the jobs run --------------------------------------------------
if [ -z "${ARENA:-}" ]; then
  cargo build --locked --quiet --bins --workspace
  ARENA=$repo/target/debug/arena
fi
bots=$(dirname "$ARENA")
for program in "$ARENA" "$bots/random-bot" "$bots/strong-bot"; do
  [ -x "$program" ] || fail "$program is not built"
done

# --- a folder of this run's own; whatever it started ends with it ----------
work=$(mktemp -d /tmp/arena-slurm.XXXXXX)
chmod 755 "$work"
daemons=()
jobs_submitted=()
cleanup() {
  local status=$?
  if [ ${#jobs_submitted[@]} -gt 0 ]; then
    scancel "${jobs_submitted[@]}" 2>/dev/null || true
  fi
  # slurmd first (it ends its job steps), then the controller, then munged.
  for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do
    kill -TERM "${daemons[i]}" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "${daemons[i]}" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "${daemons[i]}" 2>/dev/null || true
    wait "${daemons[i]}" 2>/dev/null || true
  done
  if [ "$status" != 0 ]; then
    for log in "$work"/*.log "$work"/out/*; do
      [ -f "$log" ] && { echo "--- $log"; tail -n 20 "$log"; } >&2
    done
  fi
  if [ "${KEEP:-}" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- munge: a key and a socket of this run's own ---------------------------
mkdir -p "$work/munge"
chmod 700 "$work/munge"
mungekey --create --keyfile="$work/munge/munge.key" >/dev/null 2>&1 \
  || { head -c 1024 /dev/urandom >"$work/munge/munge.key"; chmod 600 "$work/munge/munge.key"; }
socket=$work/munge/munge.socket
munged --foreground --force --key-file="$work/munge/munge.key" --socket="$socket" \
  --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/seed" \
  --log-file="$work/munged.log" 2>>"$work/munged-stderr.log" &
daemons+=($!)
for _ in $(seq 100); do [ -S "$socket" ] && break; sleep 0.1; done
[ -S "$socket" ] || fail "munged did not start"
munge --socket="$socket" --no-input | unmunge --socket="$socket" >/dev/null \
  || fail "munge cannot verify its own credential"

# --- slurm.conf: one node, this machine -------------------------------------
node=$(hostname -s)
cpus=$(nproc)
free_port() {
  local port=$1
  while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 2)); done
  echo "$port"
}
ctld_port=$(free_port 16817)
slurmd_port=$(free_port $((ctld_port + 1)))
mkdir -p "$work/ctld" "$work/slurmd" "$work/out"
export SLURM_CONF=$work/slurm.conf
# The scheduler looks every second (not every few): an array task starts as
# soon as the one before it frees the CPUs.
cat >"$SLURM_CONF" <<EOF
ClusterName=arena-test
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$work/ctld
SlurmdSpoolDir=$work/slurmd
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1,sched_min_interval=100000
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
MinJobAge=3600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=arena Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
# In the foreground (-D), each daemon logs to its stderr, kept here.
slurmctld -D -i -f "$SLURM_CONF" >>"$work/slurmctld.log" 2>&1 &
daemons+=($!)
for _ in $(seq 100); do scontrol ping >/dev/null 2>&1 && break; sleep 0.2; done
scontrol ping >/dev/null 2>&1 || fail "slurmctld did not start"
slurmd -D -N "$node" -f "$SLURM_CONF" >>"$work/slurmd.log" 2>&1 &
daemons+=($!)
state=
for _ in $(seq 150); do
  state=$(sinfo -h -n "$node" -o %T 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.2
done
[ "$state" = idle ] || fail "the node is '$state', not idle"
say "a cluster of one node ($node, $cpus CPUs) is up"

# --- the league: Python, JavaScript and Rust bots, and one to build ---------
league=$work/league.toml
mkdir -p "$work/bots/built"
cp bots/python/random_bot.py "$work/bots/built/bot.py"
printf 'cp bot.py bot\nchmod +x bot\n' >"$work/bots/built/build.sh"
echo /bot >"$work/bots/built/.gitignore"
cat >"$league" <<EOF
game = "number-snatch"
seed = 11
games_per_pair = 6
concurrency = 1

[[bot]]
name = "random-py"
command = ["python3", "$repo/bots/python/random_bot.py"]

[[bot]]
name = "random-js"
command = ["node", "$repo/bots/javascript/random_bot.js"]

[[bot]]
name = "random-rs"
command = ["$bots/random-bot"]

[[bot]]
name = "strong-rs"
command = ["$bots/strong-bot"]

[[bot]]
name = "built-py"
dir = "bots/built"
build = ["sh", "build.sh"]
command = ["./bot"]
EOF
# The key every task reads, where the example says to keep it.
export HOME=$work/home
mkdir -p "$HOME"
head -c 32 /dev/urandom | base64 >"$HOME/.arena-seed-key"
chmod 600 "$HOME/.arena-seed-key"
export ARENA LEAGUE=$league RESULTS=$work/results

# --- the example, as its comment says ---------------------------------------
grep -q '^#   examples/leaderboard.sh build$' examples/slurm-array.sh \
  || fail "examples/slurm-array.sh no longer says to build the bots first"
examples/leaderboard.sh build
# Only where the output files go is added: the example writes them into the
# folder it is submitted from, here the repository.
out=(--output="$work/out/%x-%A_%a.out")
array=$(sbatch --parsable "${out[@]}" examples/slurm-array.sh)
array=${array%%;*}
jobs_submitted+=("$array")
wrap=$(sed -n 's/^#   sbatch --dependency=afterok:JOBID --wrap "\(.*\)"$/\1/p' examples/slurm-array.sh)
[ -n "$wrap" ] || fail "examples/slurm-array.sh no longer says how to merge"
merge=$(sbatch --parsable "${out[@]}" --job-name=arena-merge --dependency="afterok:$array" --wrap "$wrap")
merge=${merge%%;*}
jobs_submitted+=("$merge")
say "submitted array job $array and merge job $merge ($wrap)"

deadline=$((SECONDS + ${TIMEOUT:-900}))
while :; do
  states=$(squeue -h -t all -j "$array,$merge" -o "%i %T")
  if ! grep -vq ' COMPLETED$' <<<"$states"; then break; fi
  if grep -Eq ' (FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE|PREEMPTED)$' <<<"$states" \
    || squeue -h -j "$merge" -o %r 2>/dev/null | grep -q DependencyNeverSatisfied; then
    echo "$states" >&2
    fail "a job did not complete"
  fi
  [ "$SECONDS" -lt "$deadline" ] || { echo "$states" >&2; fail "the jobs did not finish in time"; }
  sleep 1
done
tasks=$(squeue -h -t all -j "$array" -o "%i %T" | grep -c ' COMPLETED$')
shards=$(sed -n 's/^#SBATCH --array=1-\([0-9]*\)$/\1/p' examples/slurm-array.sh)
[ "$tasks" = "$shards" ] || fail "$tasks of $shards array tasks completed"
say "$tasks array tasks and the merge completed"

# --- the same league on one machine -----------------------------------------
ARENA_SEED_KEY=$(cat "$HOME/.arena-seed-key") "$ARENA" run "$league" --out "$work/single" --quiet

# Timing columns and where a transcript sits in the archive depend on the
# machine and the order games finished in; everything else must be equal.
results_of() {
  python3 - "$1" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1] + "/games.csv", newline="")))
for row in rows:
    for timing in ("duration_ms", "slowest1_ms", "slowest2_ms", "transcript"):
        row.pop(timing, None)
    print(sorted(row.items()))
EOF
}
merged=$RESULTS/league
[ -s "$merged/games.csv" ] || fail "the merge wrote no games.csv"
games=$(($(wc -l <"$work/single/games.csv") - 1))
diff <(results_of "$work/single") <(results_of "$merged") >&2 \
  || fail "games.csv of the cluster run differs from the one-machine run's"
for file in standings.csv crosstable.csv; do
  diff "$work/single/$file" "$merged/$file" >&2 || fail "$file differs from the one-machine run's"
done
grep -q '"name":"strong-rs"' "$RESULTS/leaderboard.html" || fail "the report wrote no page"
grep -q 'strong-rs' "$RESULTS/summary.md" || fail "the report wrote no Markdown"
say "the cluster's $games games, standings and crosstable equal one machine's"
say "passed in $((SECONDS - started)) s"
