#!/usr/bin/env bash
# One visit to a GPU machine: a `gpu`-preset walk run sized to a 15-minute device lease and
# its walk report, everything under $OUT. The device time goes to training; push recovery,
# fall causes and the GIF run afterwards on any machine from the run it brings back:
#
#   bash benchmarks/gpu_walk.sh        # on the GPU machine, after the set-up ../shared/gpu/README.md gives
#   tar xzf $OUT/run.tar.gz -C runs/ && python benchmarks/push_recovery.py runs/mjxwalk_gpu_run ...
#   PRESET=smoke MINUTES=0.5 EPISODES=4 OUT=/tmp/gw bash benchmarks/gpu_walk.sh   # a dry run on a CPU
#
# Settings (environment variables): OUT (results, default runs/gpu_walk_out), MINUTES
# (training budget, compilation included; default 6: with the machine's start and the walk
# report about 10 of the lease's 15 minutes, which leaves no room to rerun after a late failure), PRESET (default gpu), EPISODES (per
# walk-report scenario, default 128), RUN_DIR (the run itself, default /tmp/mjxwalk_gpu_run:
# its env checkpoints are too large to bring back). mjxwalk must be importable (installed,
# or src/ on PYTHONPATH). A missing package stops the script in its first seconds, so that a
# fixed rerun still fits in the lease; whatever training wrote is packed even if it fails;
# the exit status is the first failing stage's.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-runs/gpu_walk_out}
MINUTES=${MINUTES:-6}
PRESET=${PRESET:-gpu}
EPISODES=${EPISODES:-128}
RUN_DIR=${RUN_DIR:-/tmp/mjxwalk_gpu_run}
export PYTHONUNBUFFERED=1 MUJOCO_GL=${MUJOCO_GL:-egl}
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log") 2>&1
tee_pid=$!
status=0
finish() { echo "=== $(date -u +%H:%M:%S) done, status $status"; exec >&- 2>&-; wait "$tee_pid" 2>/dev/null; exit "$status"; }

stage() { echo "=== $(date -u +%H:%M:%S) $*"; }

stage "machine"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>/dev/null || echo "no nvidia-smi"
python3 -c "import mjxwalk.compat, jax, mujoco, brax, matplotlib, tensorboardX, orbax.checkpoint
print('jax', jax.__version__, jax.devices(), '| mujoco', mujoco.__version__, '| brax', brax.__version__)" \
    || { status=1; finish; }

stage "train: preset $PRESET, $MINUTES min"
rm -rf "$RUN_DIR"
python3 -m mjxwalk.cli.train --preset "$PRESET" --out "$RUN_DIR" --minutes "$MINUTES" --quiet || status=$?
[ -d "$RUN_DIR/checkpoints" ] || { [ "$status" -ne 0 ] || status=1; finish; }
# the run without its env checkpoints: enough for load_run (evaluation, rendering, export)
name=$(basename "$RUN_DIR")
latest=$(ls "$RUN_DIR/checkpoints" | grep -E '^[0-9]+$' | sort -n | tail -1)
files=(config.json contract.json summary.json metrics.jsonl policy_params.msgpack report.png)
[ -n "$latest" ] && files+=("checkpoints/$latest")
tar -czf "$OUT/run.tar.gz" -C "$(dirname "$RUN_DIR")" --exclude="checkpoints/*/envs" \
    $(for f in "${files[@]}"; do [ -e "$RUN_DIR/$f" ] && echo "$name/$f"; done)
[ "$status" -eq 0 ] || finish
python3 -c "import json, sys; s = json.load(open(sys.argv[1])); s.pop('last_metrics'); print(s)" \
    "$RUN_DIR/summary.json"

stage "walk report, $EPISODES episodes per scenario"
python3 benchmarks/evaluate_walk.py "$RUN_DIR" "$OUT/walk_gpu" "$EPISODES" || status=$?
finish
