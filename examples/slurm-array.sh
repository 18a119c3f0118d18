#!/usr/bin/env bash
# A league too big for a CI matrix: 16 shards as a Slurm job array.
#   sbatch examples/slurm-array.sh
# then, when the array is done:
#   sbatch --dependency=afterok:JOBID --wrap "examples/leaderboard.sh merge 16 && examples/leaderboard.sh report"
# A shard that fails or is preempted resumes where it stopped when rerun.
#SBATCH --job-name=arena-league
#SBATCH --array=1-16
#SBATCH --cpus-per-task=2
#SBATCH --time=02:00:00
set -euo pipefail
exec examples/leaderboard.sh shard "$SLURM_ARRAY_TASK_ID" 16
