"""A tour of the walk env, as you would run it in a notebook (each block is a cell).

    python experiments/walk_env_tour.py
"""

# %% Robots and tasks that ship with mjxwalk
import jax
import jax.numpy as jnp

import mjxwalk

print(mjxwalk.list_robots(), mjxwalk.list_tasks())

# %% An env is a pair of pure functions; configs are frozen dataclasses, overridden by name
env = mjxwalk.make_env("walk", "kidbot", terrain="rough", commands={"vx_range": (0.0, 0.4)})
print(env.config.commands)
print(env.contract.obs_blocks)  # the observation layout the robot will use too

# %% Thousands of robots step together under jit + vmap
reset = jax.jit(jax.vmap(env.reset))
step = jax.jit(jax.vmap(env.step))
state = reset(jax.random.split(jax.random.PRNGKey(0), 512))
for _ in range(10):
    state = step(state, jnp.zeros((512, env.action_size)))
print({k: float(v.mean()) for k, v in state.metrics.items() if k.startswith("reward/")})

# %% Domain randomization is a vmap over models: the physics model is an argument
state = jax.jit(jax.vmap(env.step_with, in_axes=(None, 0, 0)))(
    env.mjx_model, state, jnp.zeros((512, env.action_size)))
print(state.obs["state"].shape, state.obs["privileged_state"].shape)
