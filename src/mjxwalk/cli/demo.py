"""mjxwalk-demo: the walk env stepping many robots with random actions, and a picture."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from mjxwalk.cli._common import quiet_imports


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mjxwalk-demo", description=__doc__)
    p.add_argument("--robot", default="kidbot", help="built-in robot name or spec file (default: kidbot)")
    p.add_argument("--terrain", default="flat", choices=["flat", "rough"])
    p.add_argument("--envs", type=int, default=256, help="parallel environments (default: 256)")
    p.add_argument("--steps", type=int, default=100, help="control steps (default: 100 = 2 s)")
    p.add_argument("--action-noise", type=float, default=0.3,
                   help="size of the random actions, 0..1 (default: 0.3)")
    p.add_argument("--out", type=Path, default=Path("runs/demo"), help="output folder (default: runs/demo)")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.envs < 1 or args.steps < 1:
        print("mjxwalk-demo: --envs and --steps must be >= 1", file=sys.stderr)
        return 2
    quiet_imports()
    import jax
    import jax.numpy as jnp
    import numpy as np

    import mjxwalk
    from mjxwalk import render

    env = mjxwalk.make_env("walk", args.robot, terrain=args.terrain)
    print(f"mjxwalk {mjxwalk.__version__}: {env.robot.name} ({env.robot.nu} servos), "
          f"{args.terrain} ground, {args.envs} envs on {jax.default_backend()}")
    reset = jax.jit(jax.vmap(env.reset))
    step = jax.vmap(env.step)

    @jax.jit
    def rollout(state, key):
        def body(s, k):
            a = jax.random.uniform(k, (args.envs, env.action_size), minval=-1, maxval=1)
            s = step(s, args.action_noise * a)
            return s, (s.data.qpos[0], s.done, s.reward, s.metrics["nan_resets"])
        return jax.lax.scan(body, state, jax.random.split(key, args.steps))

    started = time.perf_counter()
    state = reset(jax.random.split(jax.random.PRNGKey(0), args.envs))
    _, trace = jax.block_until_ready(rollout(state, jax.random.PRNGKey(1)))
    compile_s = time.perf_counter() - started
    started = time.perf_counter()
    state = reset(jax.random.split(jax.random.PRNGKey(2), args.envs))
    state, (qpos, done, reward, nans) = jax.block_until_ready(rollout(state, jax.random.PRNGKey(3)))
    run_s = time.perf_counter() - started
    rate = args.envs * args.steps / run_s
    print(f"compile {compile_s:.1f} s; then {args.envs * args.steps} env steps in {run_s:.2f} s = "
          f"{rate:,.0f} env steps/s ({rate * env.dt:,.0f} simulated s per wall s)")
    print(f"robots that fell (random actions do not walk): {int(done.any(axis=0).sum())} of "
          f"{args.envs}; NaN resets: {int(nans.sum())}; "
          f"mean reward per step: {float(jnp.mean(reward)):.3f}")

    args.out.mkdir(parents=True, exist_ok=True)
    frames = np.asarray(qpos)[::2]
    try:
        stand = render.render_qpos(env.mj_model, [np.asarray(env._default_qpos)])[0]
        print(f"picture: {render.save_png(stand, args.out / f'{env.robot.name}.png')}")
        gif = render.render_qpos(env.mj_model, frames, width=320, height=240)
        print(f"random-action rollout: {render.save_gif(gif, args.out / 'random_actions.gif', fps=1 / (2 * env.dt))}")
    except render.RenderUnavailable as e:
        print(f"no picture: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
