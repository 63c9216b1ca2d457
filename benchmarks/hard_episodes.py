"""Which randomized robots the walk policies fall with: the walk report's episodes, pooled over
several runs' reports, against what was drawn for each episode.

    python benchmarks/hard_episodes.py runs/<name> benchmarks/results/<prefix> \
        --reports A.json B.json ... [--pushes A_pushes.json B_pushes.json ...]

Counts, per episode and scenario, in how many of the reports it fell; redraws each
episode's randomization from the config of `runs/<name>` (which the reports' runs must share:
model fields, and the servo, sensor and delay draws of each reset); and relates the two per
quantity (`mjxwalk.training.hard_episodes.relate`). With push files
(`benchmarks/push_recovery.py`: forward and stand scenarios) it adds each episode's biggest
kick. Writes <prefix>_hard_episodes.json (with every episode's draws and fall count) and a PNG
of the fall shares in each quantity's lowest and highest quarter.
"""

import argparse
import json
from pathlib import Path

import numpy as np

from mjxwalk import bench, results
from mjxwalk.training import evaluate
from mjxwalk.training.hard_episodes import biggest_kicks, episode_draws, falls_per_episode, relate
from mjxwalk.training.run import load_run


def plot(summary: dict, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(summary), figsize=(5.5 * len(summary), 6), squeeze=False)
    for ax, (name, s) in zip(axes[0], summary.items()):
        rel = s["by_quantity"]
        names = list(rel)[::-1]
        y = np.arange(len(names))
        ax.barh(y - 0.2, [rel[n]["fall_share_lowest_quarter"] for n in names], 0.4,
                label="episodes in its lowest quarter")
        ax.barh(y + 0.2, [rel[n]["fall_share_highest_quarter"] for n in names], 0.4,
                label="episodes in its highest quarter")
        ax.axvline(s["fall_share"], color="k", lw=0.8, ls="--", label="all episodes")
        ax.set_yticks(y, [f"{n} (rho {rel[n]['spearman_rho']:+.2f})" for n in names], fontsize=7)
        ax.set_xlabel("share of run-episodes with a fall")
        ax.set_title(f"{name}: {s['runs']} runs x {len(s['falls_per_episode'])} episodes", fontsize=9)
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="upper center", ncol=3, fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(run_dir: Path, prefix: Path, reports: list[Path], push_paths: list[Path]) -> None:
    config, *_ = load_run(run_dir)
    loaded = {str(p): json.loads(p.read_text()) for p in reports}
    pushes = {str(p): json.loads(p.read_text()) for p in push_paths}
    num_envs = len(falls_per_episode(loaded, next(iter(evaluate.SCENARIOS))))
    # episode i meets the same draws in every scenario (tests/training/test_hard_episodes.py)
    common = episode_draws(config, next(iter(evaluate.SCENARIOS)), num_envs)
    summary = {}
    for scenario in evaluate.SCENARIOS:
        falls = falls_per_episode(loaded, scenario)
        draws = dict(common)
        if pushes and all(scenario in f["scenarios"] for f in pushes.values()):
            draws.update(biggest_kicks(pushes, scenario, len(falls)))
        hardest = np.sort(falls)[::-1][: len(falls) // 10]
        summary[scenario] = {
            "runs": len(loaded),
            "fall_share": float(falls.sum() / (len(loaded) * len(falls))),
            "episodes_fallen_in_every_run": int((falls == len(loaded)).sum()),
            "episodes_never_fallen": int((falls == 0).sum()),
            "share_of_falls_in_the_hardest_tenth_of_episodes":
                float(hardest.sum() / falls.sum()) if falls.sum() else None,
            "by_quantity": relate(draws, falls, len(loaded)),
            "falls_per_episode": falls.tolist(),
            "draws_per_episode": {k: np.round(v, 4).tolist() for k, v in draws.items()},
        }
    out = {"run": str(run_dir), "reports": list(loaded), "pushes": list(pushes),
           "episodes": len(falls), "scenarios": summary, "versions": bench.versions()}
    results.write(f"{prefix}_hard_episodes.json", out)
    plot(summary, Path(f"{prefix}_hard_episodes.png"))
    for name, s in summary.items():
        print(f"{name}: {s['fall_share']:.1%} of {s['runs']} x {len(falls)} run-episodes fell; "
              f"{s['episodes_fallen_in_every_run']} episodes in every run, "
              f"{s['episodes_never_fallen']} in none; the hardest tenth of the episodes hold "
              f"{s['share_of_falls_in_the_hardest_tenth_of_episodes']:.0%} of the falls")
        for q, r in list(s["by_quantity"].items())[:5]:
            print(f"  {q}: rho {r['spearman_rho']:+.2f} (p {r['p_value']:.2g}); "
                  f"{r['fall_share_lowest_quarter']:.1%} fell in its lowest quarter, "
                  f"{r['fall_share_highest_quarter']:.1%} in its highest")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", type=Path, help="a run whose env config the reports' runs share")
    parser.add_argument("prefix", type=Path)
    parser.add_argument("--reports", type=Path, nargs="+", required=True,
                        help="walk reports (benchmarks/evaluate_walk.py) to pool")
    parser.add_argument("--pushes", type=Path, nargs="*", default=[],
                        help="push files (benchmarks/push_recovery.py) of those runs, for the kicks")
    args = parser.parse_args()
    try:
        main(args.run_dir, args.prefix, args.reports, args.pushes)
    except ValueError as e:
        raise SystemExit(f"hard_episodes: {e}") from None
