"""Randomized models carried in the env state against models compiled into the programs as
constants (`BatchedEnv`'s design before), side by side in one run: compile time of two
seeds' robots, and env steps per second.

    python benchmarks/models_in_state.py [--batch 256] [--steps 20] [--rounds 7]
        [--out benchmarks/results/models_in_state_cpu]

Each (design, seed) builds its env and jits its reset and rollout afresh, as a new run or
another host would, against one persistent compilation cache (empty at the start): what
another seed can reuse shows as a cache hit. The designs alternate within each seed, and
the compiled rollouts are then timed round-robin. Both
must step the same robots to the same states (checked to 1e-3). Writes <out>.json and <out>.png.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from mjxwalk import bench, results
from mjxwalk.wrappers import BatchedEnv, model_keys


class ConstantModels(BatchedEnv):
    """The design before: one seed's models drawn once, outside the programs, and closed
    over by them, so they enter each compiled program as constants."""

    def __init__(self, env, batch_size: int, seed: int):
        super().__init__(env, batch_size)
        self.keys = model_keys(seed, batch_size)
        self.fields = jax.device_get(self.draw_models(self.keys))

    def reset(self, rng, model_rng=None):
        state = super().reset(rng, self.keys)
        return state.replace(info={**state.info, "model": {}})

    def step(self, state, action):
        state = super().step(state.replace(info={**state.info, "model": self.fields}), action)
        return state.replace(info={**state.info, "model": {}})


def compile_one(env, design: str, seed: int, batch: int, steps: int) -> tuple[dict, object]:
    """Build and compile one (design, seed); returns its row and a timed call."""
    batched = (ConstantModels(env, batch, seed) if design == "constants"
               else BatchedEnv(env, batch))
    keys = jax.random.split(jax.random.PRNGKey(100), batch)
    actions = jnp.zeros((steps, batch, env.action_size))

    @jax.jit
    def reset(keys, models):
        return batched.reset(keys, models)

    @jax.jit
    def rollout(state):
        return jax.lax.scan(lambda s, a: (batched.step(s, a), None), state, actions)[0]

    start = time.perf_counter()
    state = jax.block_until_ready(reset(keys, model_keys(seed, batch)))
    reset_s = time.perf_counter() - start
    start = time.perf_counter()
    final = jax.block_until_ready(rollout(state))
    step_s = time.perf_counter() - start
    row = {"design": design, "seed": seed, "reset_compile_s": round(reset_s, 2),
           "step_compile_s": round(step_s, 2), "final_qpos": np.asarray(final.data.qpos)}
    return row, lambda: rollout(state)


def time_rounds(calls: list, rounds: int) -> list[list[float]]:
    """Each call timed once per round, round-robin, so that a machine getting busier or
    quieter during the run weighs on every design alike."""
    times = [[] for _ in calls]
    for _ in range(rounds):
        for i, call in enumerate(calls):
            start = time.perf_counter()
            jax.block_until_ready(call())
            times[i].append(time.perf_counter() - start)
    return times


def plot(rows: list[dict], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    designs = ("constants", "state")
    labels = {"constants": "models as program constants (before)",
              "state": "models in the env state (now)"}
    seeds = sorted({r["seed"] for r in rows})
    width = 0.8 / len(designs)
    for i, design in enumerate(designs):
        mine = {r["seed"]: r for r in rows if r["design"] == design}
        xs = [j + (i - 0.5) * width for j in range(len(seeds))]
        axes[0].bar(xs, [mine[s]["reset_compile_s"] + mine[s]["step_compile_s"] for s in seeds],
                    width, label=labels[design])
        axes[1].bar(xs, [mine[s]["env_steps_per_s"] for s in seeds], width, label=labels[design])
    for ax, ylabel in zip(axes, ("reset + step compile (s)", "env steps / s")):
        ax.set_xticks(range(len(seeds)))
        ax.set_xticklabels([f"seed {s}" + (" (first run)" if k == 0 else " (a new run)")
                            for k, s in enumerate(seeds)])
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3, axis="y")
    axes[0].set_ylim(0, 1.35 * max(r["reset_compile_s"] + r["step_compile_s"] for r in rows))
    axes[0].legend(fontsize=8, loc="upper left")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--batch", type=int, default=256, help="parallel envs (default 256)")
    p.add_argument("--steps", type=int, default=20, help="control steps per call (default 20)")
    p.add_argument("--rounds", type=int, default=7,
                   help="timed calls of each, round-robin (default 7)")
    p.add_argument("--out", type=Path, default=Path("benchmarks/results/models_in_state_cpu"))
    args = p.parse_args()

    import mjxwalk

    started = time.time()
    with tempfile.TemporaryDirectory() as cache:
        jax.config.update("jax_compilation_cache_dir", cache)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
        env = mjxwalk.make_env("walk", "kidbot")
        rows, calls = [], []
        for k, seed in enumerate((0, 1)):
            for design in (("constants", "state") if k % 2 == 0 else ("state", "constants")):
                print(f"== compiling {design}, seed {seed}", flush=True)
                row, call = compile_one(env, design, seed, args.batch, args.steps)
                rows.append(row)
                calls.append(call)
        print(f"== timing, {args.rounds} rounds", flush=True)
        for row, times in zip(rows, time_rounds(calls, args.rounds)):
            row["median_s"] = statistics.median(times)
            row["env_steps_per_s"] = args.batch * args.steps / row["median_s"]
            row["env_steps_per_s_each_round"] = [round(args.batch * args.steps / t) for t in times]
    # the same robots, stepped alike: XLA folds constants, so the last bits differ and
    # contacts amplify them a little over the steps
    differences = {}
    for seed in (0, 1):
        a, b = (r["final_qpos"] for r in rows if r["seed"] == seed)
        differences[f"seed_{seed}"] = float(np.abs(a - b).max())
    for r in rows:
        del r["final_qpos"]
    if max(differences.values()) > 1e-3:
        raise SystemExit(f"the designs stepped the same robots to different states: {differences}")
    report = {"benchmark": "randomized models in the env state vs as compiled constants",
              "command": " ".join(["python", "benchmarks/models_in_state.py", *sys.argv[1:]]),
              "config": {"batch": args.batch, "steps": args.steps, "rounds": args.rounds,
                         "robot": "kidbot", "task": "walk (full randomization)",
                         "xla_flags": os.environ.get("XLA_FLAGS", ""),
                         "what": "per (design, seed): a fresh env and jit, one compilation "
                                 "cache shared by all"},
              "max_final_qpos_difference": differences,
              "versions": bench.versions(), "rows": rows,
              "wall_s": round(time.time() - started, 1)}
    json_path, png_path = Path(f"{args.out}.json"), Path(f"{args.out}.png")
    results.write(json_path, report)
    plot(rows, png_path, f"kidbot walk env, {args.batch} envs x {args.steps} steps, "
                         f"{jax.default_backend()}, {os.cpu_count()} cores")
    print(f"wrote {json_path} and {png_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
