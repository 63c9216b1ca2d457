"""How large the actor's Adam steps are under each gradient clip, from a run's logged
gradient norms (`loss/policy_grad_norm`, `loss/value_grad_norm`, logged since the
optimizer module).

    python benchmarks/adam_step_scale.py runs/<name> [benchmarks/results/<prefix>]

A clip scales the actor's gradient by a factor f. Adam divides its running mean of the
gradient (decay 0.9) by the root of its running mean square (decay 0.999), so a steady f
cancels, but a sudden drop in f shrinks every step until the mean square forgets the old
scale, about 1 / (1 - 0.999) = 1000 updates per e-fold. With one global clip f is
max_grad_norm / |(policy, value)|, and the critic's norm jumps when the discount switches;
with a clip per network f is max_grad_norm / |policy| (1 when that is under it). Each
iteration's mean norms stand for all its minibatches (`minibatch_clip.py` measures the
spread within one). The step scale is the running mean of f over the root of the running
mean square of f: 1 when f is steady.

Writes <prefix>_adam_step_scale.json and .png.
"""

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from mjxwalk import bench, results  # noqa: E402
from mjxwalk.training.run import saved_config  # noqa: E402

BETA1, BETA2 = 0.9, 0.999
"""Adam's decays (optax's defaults, which the trainer uses)."""


def step_scale(factors: np.ndarray) -> np.ndarray:
    """Adam's step, per update, relative to what the same gradients unscaled would get."""
    m = v = 0.0
    out = np.empty_like(factors)
    for i, f in enumerate(factors):
        m = BETA1 * m + (1 - BETA1) * f
        v = BETA2 * v + (1 - BETA2) * f * f
        # bias corrections as Adam's, so the first updates are not read as small
        out[i] = (m / (1 - BETA1 ** (i + 1))) / np.sqrt(v / (1 - BETA2 ** (i + 1)))
    return out


def main(run_dir: Path, prefix: Path) -> None:
    config = saved_config(run_dir)
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    rows = [r for r in rows if "loss/value_grad_norm" in r]
    if not rows:
        raise SystemExit(f"{run_dir}/metrics.jsonl has no gradient norms: the run predates "
                         "their logging")
    updates = config.num_minibatches * config.num_updates_per_batch
    max_norm = config.max_grad_norm
    steps = np.array([r["env_steps"] for r in rows], float)
    policy = np.array([r["loss/policy_grad_norm"] for r in rows])
    value = np.array([r["loss/value_grad_norm"] for r in rows])
    clips = {"global": np.minimum(1.0, max_norm / np.hypot(policy, value)),
             "per_network": np.minimum(1.0, max_norm / policy)}
    # rows are logged every `log_every` iterations: each stands for the updates since the last
    per_row = np.diff(np.concatenate([[0.0], steps])) / config.env_steps_per_iteration * updates
    repeats = np.maximum(1, np.round(per_row)).astype(int)
    scale = {k: step_scale(np.repeat(f, repeats))[np.cumsum(repeats) - 1]
             for k, f in clips.items()}

    switch = config.discounting_switch_steps
    after = steps >= switch
    out = {"run": str(run_dir), "updates_per_iteration": updates, "max_grad_norm": max_norm,
           "discounting_switch_steps": switch, "adam_decays": [BETA1, BETA2],
           "value_grad_norm_before_after_switch": [
               float(np.median(value[~after][-20:])) if (~after).any() else None,
               float(np.median(value[after][:20])) if after.any() else None],
           "global_clip": {}, "per_network_clip": {},
           "curve": [{"env_steps": int(s), "global": float(g), "per_network": float(p),
                      "value_grad_norm": float(v), "policy_grad_norm": float(q)}
                     for s, g, p, v, q in zip(steps, scale["global"], scale["per_network"],
                                              value, policy)][::5],
           "versions": bench.versions()}
    for key, name in (("global", "global_clip"), ("per_network", "per_network_clip")):
        s = scale[key][after]
        if not after.any() or not switch:
            continue
        below = {f"steps_after_switch_below_{t}": float(np.sum(np.diff(
            np.concatenate([[switch], steps[after]]))[s < t])) for t in (0.5, 0.9)}
        out[name] = {"minimum_after_switch": float(s.min()), **below,
                     "mean_after_switch": float(s.mean())}
    results.write(f"{prefix}_adam_step_scale.json", out)

    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot(steps / 1e6, scale["global"], label="one global clip")
    ax.plot(steps / 1e6, scale["per_network"], label="a clip per network")
    if switch:
        ax.axvline(switch / 1e6, color="gray", ls=":", label="discount switch")
    ax.set(xlabel="env steps (M)", ylabel="actor's Adam step / its steady size",
           yscale="log", title=f"{run_dir.name}: the actor's step under each clip")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(f"{prefix}_adam_step_scale.png", dpi=120)
    for name in ("global_clip", "per_network_clip"):
        print(name, out[name])


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2] if len(sys.argv) > 2 else "benchmarks/results/walk_cpu"))
