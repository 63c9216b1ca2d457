#!/usr/bin/env bash
# Walk env vs raw mjx.step vs MuJoCo C on the same scene, as committed in benchmarks/results/.
# Run from the project root inside the venv (python3 quickstart.py sets it up).
set -euo pipefail
out=${1:-benchmarks/results}
mjxwalk-bench --batch 64 256 1024 --steps 25 --out "$out/env_throughput_cpu.json"
mjxwalk-bench --batch 1024 --substeps 2 4 8 --steps 25 --no-mujoco-c --out "$out/env_substeps_cpu.json"
mjxwalk-bench --randomization --batch 256 1024 --steps 25 --out "$out/randomization_cpu.json"
mjxwalk-bench --randomization --terrain rough --batch 1024 --steps 25 --out "$out/randomization_rough_cpu.json"
mjxwalk-bench --training --batch 1024 --out "$out/training_cpu.json"
