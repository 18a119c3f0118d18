#!/usr/bin/env bash
# A league too big for a CI matrix: 16 shards as a Slurm job array. Build
# the league's bots once, where the nodes share the checkout:
#   examples/leaderboard.sh build
#   sbatch examples/slurm-array.sh
# then, when the array is done:
#   sbatch --dependency=afterok:JOBID --wrap "examples/leaderboard.sh merge 16 && examples/leaderboard.sh report"
# A shard that fails or is preempted resumes where it stopped when rerun.
# Every task reads the same seat-seed key: make one first, readable by you
# alone (head -c 32 /dev/urandom | base64 > ~/.arena-seed-key; chmod 600).
#SBATCH --job-name=arena-league
#SBATCH --array=1-16
#SBATCH --cpus-per-task=2
#SBATCH --time=02:00:00
set -euo pipefail
ARENA_SEED_KEY=$(cat ~/.arena-seed-key)
export ARENA_SEED_KEY
exec examples/leaderboard.sh shard "$SLURM_ARRAY_TASK_ID" 16
