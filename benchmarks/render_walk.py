"""Render a trained walk policy as a GIF: one robot under full randomization, commanded
forward, then to turn, then to stand.

    python benchmarks/render_walk.py runs/<name> [docs/kidbot_walk.gif]

The run may be a shipped policy's name (`kidbot_walk`).
"""

import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from mjxwalk import render
from mjxwalk.training.evaluate import env_with_fixed_commands, policy_fn
from mjxwalk.training.run import load_run
from mjxwalk.wrappers import BatchedEnv, model_keys

import _cli

SEGMENTS = [((0.3, 0.0, 0.0), 5.0), ((0.0, 0.0, 0.5), 3.0), ((0.0, 0.0, 0.0), 1.5)]
"""(vx, vy, yaw rate) commands and how long each is held, s."""


def main(run_dir: Path, out: Path, candidates: int = 8) -> None:
    config, _, make_policy, _, state = load_run(run_dir)
    env = env_with_fixed_commands(config)
    policy = policy_fn(make_policy, state)
    steps = [int(round(seconds / env.dt)) for _, seconds in SEGMENTS]
    commands = jnp.concatenate([jnp.tile(jnp.asarray(c, jnp.float32), (n, 1))
                                for (c, _), n in zip(SEGMENTS, steps)])
    batched = BatchedEnv(env, candidates, episode_length=sum(steps) + 1)

    @jax.jit
    def rollout(key):
        s = batched.reset(jax.random.split(key, candidates), model_keys(3, candidates))

        def body(s, xs):
            command, k = xs
            walk = s.info["walk"].replace(command=jnp.broadcast_to(command, (candidates, 3)))
            s = s.replace(info={**s.info, "walk": walk})
            action, _ = policy(s.obs, k)
            s = batched.step(s, action)
            return s, (s.data.qpos, s.metrics["falls"])

        return jax.lax.scan(body, s, (commands, jax.random.split(key, len(commands))))[1]

    qpos, falls = jax.device_get(rollout(jax.random.PRNGKey(0)))
    upright = np.flatnonzero(falls.sum(axis=0) == 0)
    pick = int(upright[0]) if len(upright) else 0
    print(f"{len(upright)} of {candidates} randomized robots stayed up; rendering robot {pick}")
    stride = 3  # 16.7 frames/s keeps the GIF small enough for a README
    frames = render.render_qpos(env.mj_model, qpos[::stride, pick], width=256, height=192)
    print(render.save_gif(frames, out, fps=1 / (stride * env.dt)))


if __name__ == "__main__":
    main(_cli.run_dir(sys.argv[1]),
         Path(sys.argv[2] if len(sys.argv) > 2 else "docs/kidbot_walk.gif"))
