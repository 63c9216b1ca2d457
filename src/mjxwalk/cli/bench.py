"""mjxwalk-bench: physics and env steps per second, side by side, as JSON (+ PNG)."""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

from mjxwalk.cli._common import quiet_imports


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="mjxwalk-bench",
        description="Measure the walk env's steps per second against raw mjx.step and MuJoCo C "
                    "on the same scene (compile time reported apart; median of timed calls).")
    p.add_argument("--robot", default="kidbot", help="built-in robot name or spec file (default: kidbot)")
    p.add_argument("--terrain", default="flat", choices=["flat", "rough"], help="scene (default: flat)")
    p.add_argument("--batch", type=int, nargs="+", default=[1024],
                   help="parallel environments; several values make a sweep (default: 1024)")
    p.add_argument("--substeps", type=int, nargs="+", default=None,
                   help="physics substeps per 0.02 s control step to sweep (default: the robot's)")
    p.add_argument("--steps", type=int, default=50, help="control steps per timed call (default: 50)")
    p.add_argument("--repeats", type=int, default=3, help="timed calls; the median is reported (default: 3)")
    p.add_argument("--no-mujoco-c", action="store_true", help="skip the MuJoCo C comparison")
    p.add_argument("--randomization", action="store_true",
                   help="instead: the batched training env with all randomization off vs on")
    p.add_argument("--training", action="store_true",
                   help="instead: PPO training env steps/s against the batched env's own")
    p.add_argument("--out", type=Path, default=None, help="write results as JSON here (and a PNG beside it)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if min(args.batch) < 1 or args.steps < 1 or args.repeats < 1:
        print("mjxwalk-bench: --batch, --steps and --repeats must be >= 1", file=sys.stderr)
        return 2
    quiet_imports()
    import mjxwalk
    from mjxwalk import bench
    from mjxwalk import results as results_file

    robot = mjxwalk.load_robot(args.robot)
    substeps = args.substeps or [robot.n_substeps]
    started = time.time()
    results, overhead = [], {}
    if args.training:
        substeps = [robot.n_substeps]
        results = bench.training_sweep(robot, args.batch)
        by = {(r.what, r.batch): r for r in results}
        for batch in args.batch:
            for what in ("training", "training_symmetry"):
                overhead[f"{what}_share,batch={batch}"] = \
                    by[what, batch].env_steps_per_s / by["batched_env", batch].env_steps_per_s
    elif args.randomization:
        substeps = [robot.n_substeps]
        results = bench.randomization_sweep(robot, args.terrain, args.batch, args.steps, args.repeats)
        by = {(r.what, r.batch): r for r in results}
        for batch in args.batch:
            slower = 1 - by["randomization_on", batch].env_steps_per_s / \
                by["randomization_off", batch].env_steps_per_s
            overhead[f"randomization,batch={batch}"] = slower
            print(f"   all randomization on is {100 * slower:+.1f}% slower at batch {batch}")
    for n in ([] if args.randomization or args.training else substeps):
        spec = dataclasses.replace(robot, timestep=robot.control_period / n)
        env = mjxwalk.make_env("walk", spec, terrain=args.terrain)
        print(f"== {robot.name}, {args.terrain}, {n} substeps of {spec.timestep * 1e3:.2f} ms")
        rows = bench.sweep(env, args.batch, args.steps, args.repeats, mujoco_c=not args.no_mujoco_c)
        results += rows
        for batch, extra in bench.env_overhead(rows).items():
            overhead[f"substeps={n},batch={batch}"] = extra
            print(f"   env overhead over raw physics at batch {batch}: {100 * extra:+.1f}%")
    report = {
        "benchmark": ("PPO training vs the batched env alone" if args.training
                      else "batched walk env, randomization off vs on" if args.randomization
                      else "walk env vs raw mjx.step vs MuJoCo C"),
        "command": "mjxwalk-bench " + " ".join(argv if argv is not None else sys.argv[1:]),
        "config": {"robot": robot.name, "terrain": args.terrain, "batches": args.batch,
                   "substeps": substeps, "control_period": robot.control_period,
                   "steps_per_call": args.steps, "repeats": args.repeats},
        "versions": bench.versions(),
        "results": bench.as_rows(results),
        "overhead": overhead,
        "wall_s": round(time.time() - started, 1),
    }
    if args.training:  # what each timed iteration did, so runs of other presets compare
        report["config"]["learner"] = {
            str(batch): {f: getattr(bench.training_config(robot, batch), f)
                         for f in bench.LEARNER_FIELDS} for batch in args.batch}
    if args.out:
        results_file.write(args.out, report)
        title = f"{robot.name} walk env, {args.terrain}, {report['versions']['jax_backend']}"
        if args.randomization:
            title += ", randomization off vs on"
        if args.training:
            title += ", training vs env"
        bench.plot([r for r in results if r.substeps == substeps[0]], args.out.with_suffix(".png"),
                   title + f", {substeps[0]} substeps")
        print(f"wrote {args.out} and {args.out.with_suffix('.png')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
