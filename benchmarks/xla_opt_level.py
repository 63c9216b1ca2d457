"""XLA's CPU backend optimization level against compile time and steps per second: the
batched walk env and PPO training (the `cpu` preset's learner), side by side in one run.

    python benchmarks/xla_opt_level.py [--levels default 1] [--repeats 2] [--batch 1024]
        [--out benchmarks/results/xla_opt_level_cpu]

Each (level, repeat) is one `mjxwalk-bench --training` in its own process, since XLA reads
XLA_FLAGS once, starting from an empty compilation cache of its own (within one process the
symmetry-augmented training may reuse what the plain training compiled, at every level
alike). The levels alternate in order between repeats (A B, B A, ...) so that a machine
getting busier or quieter during the run does not favour one. Writes <out>.json and <out>.png.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mjxwalk import bench, results

MEASURES = ("batched_env", "training", "training_symmetry")
"""The rows of `mjxwalk-bench --training` compared: the env alone, and PPO training without
and with symmetry augmentation (the presets train with it)."""


def xla_flags(level: str) -> str:
    """XLA_FLAGS for `level`, keeping any flags already set ('default' adds none)."""
    base = os.environ.get("XLA_FLAGS", "").strip()
    if level == "default":
        return base
    return f"{base} --xla_backend_optimization_level={int(level)}".strip()


def run_one(level: str, batch: int, workdir: Path, tag: str) -> dict:
    out = workdir / f"{tag}.json"
    env = {**os.environ, "XLA_FLAGS": xla_flags(level),
           "JAX_COMPILATION_CACHE_DIR": str(workdir / f"cache_{tag}")}
    cmd = [sys.executable, "-m", "mjxwalk.cli.bench", "--training", "--batch", str(batch),
           "--out", str(out)]
    start = time.time()
    subprocess.run(cmd, env=env, check=True)
    rows = {r["what"]: r for r in json.loads(out.read_text())["results"]}
    return {"level": level, "tag": tag, "wall_s": round(time.time() - start, 1),
            **{f"{what}_{k}": rows[what][k] for what in MEASURES
               for k in ("compile_s", "env_steps_per_s")}}


def summarize(runs: list[dict], levels: list[str]) -> dict:
    """Per level, the median of each measure over its repeats; and each level's ratio to the
    first level's."""
    keys = [f"{m}_{k}" for m in MEASURES for k in ("compile_s", "env_steps_per_s")]
    med = {lv: {k: statistics.median(r[k] for r in runs if r["level"] == lv) for k in keys}
           for lv in levels}
    base = med[levels[0]]
    ratio = {lv: {k: med[lv][k] / base[k] for k in keys} for lv in levels[1:]}
    return {"median": med, f"ratio_to_{levels[0]}": ratio}


def plot(runs: list[dict], levels: list[str], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.2))
    width = 0.8 / len(levels)
    for i, lv in enumerate(levels):
        mine = [r for r in runs if r["level"] == lv]
        label = "XLA default" if lv == "default" else f"opt level {lv}"
        for ax, suffix in zip(axes, ("compile_s", "env_steps_per_s")):
            xs = [j + (i - (len(levels) - 1) / 2) * width for j in range(len(MEASURES))]
            vals = [statistics.median(r[f"{m}_{suffix}"] for r in mine) for m in MEASURES]
            ax.bar(xs, vals, width, label=label)
            for j, m in enumerate(MEASURES):  # every repeat as a dot: the spread
                ax.plot([xs[j]] * len(mine), [r[f"{m}_{suffix}"] for r in mine], "k.", ms=4)
    for ax, ylabel in zip(axes, ("compile time (s, empty cache)", "env steps / s")):
        ax.set_xticks(range(len(MEASURES)))
        ax.set_xticklabels(["env alone", "training", "training +\nsymmetry"])
        ax.set_ylabel(ylabel)
        ax.grid(alpha=0.3, axis="y")
    axes[0].legend()
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--levels", nargs="+", default=["default", "1"],
                   help="'default' (XLA's own) and/or integer levels; ratios are to the first")
    p.add_argument("--repeats", type=int, default=2, help="runs per level (default 2)")
    p.add_argument("--batch", type=int, default=1024, help="parallel envs (default 1024)")
    p.add_argument("--out", type=Path, default=Path("benchmarks/results/xla_opt_level_cpu"))
    args = p.parse_args()
    for lv in args.levels:
        if lv != "default" and not lv.isdigit():
            p.error(f"--levels: {lv!r} is neither 'default' nor a non-negative integer")
    started = time.time()
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(args.repeats):
            order = args.levels if rep % 2 == 0 else args.levels[::-1]
            for lv in order:
                print(f"== level {lv}, repeat {rep + 1} of {args.repeats}", flush=True)
                runs.append(run_one(lv, args.batch, Path(tmp), f"{lv}_{rep}"))
    report = {"benchmark": "XLA CPU optimization level: compile time and steps/s",
              "command": " ".join(["python", "benchmarks/xla_opt_level.py", *sys.argv[1:]]),
              "config": {"levels": args.levels, "repeats": args.repeats, "batch": args.batch,
                         "base_xla_flags": os.environ.get("XLA_FLAGS", ""),
                         "what": "mjxwalk-bench --training per (level, repeat), empty cache"},
              "versions": bench.versions(), "runs": runs, **summarize(runs, args.levels),
              "wall_s": round(time.time() - started, 1)}
    json_path, png_path = Path(f"{args.out}.json"), Path(f"{args.out}.png")
    results.write(json_path, report)
    plot(runs, args.levels, png_path,
         f"XLA CPU optimization level, {args.batch} envs, {report['versions']['cpu_count']} cores")
    print(json.dumps({k: report[k] for k in report if k.startswith(("median", "ratio"))}, indent=1))
    print(f"wrote {json_path} and {png_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
