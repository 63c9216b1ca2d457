"""The walk env: physics parity with MuJoCo C, batched stepping, standing, NaN safety."""

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
import pytest
from mujoco import mjx

import mjxwalk
from mjxwalk import obs, sim


def test_registry():
    assert mjxwalk.list_tasks() == ["walk"]
    with pytest.raises(mjxwalk.errors.ConfigError, match="unknown task 'run'"):
        mjxwalk.make_env("run")


def test_spaces_follow_the_contract(walk_env):
    c = walk_env.contract
    assert walk_env.action_size == 18
    assert walk_env.dt == pytest.approx(0.02)
    assert walk_env.observation_size["state"] == (c.observation_size,)
    # gyro 3 + gravity 3 + 3 x 18 joints + command 3 + phase 2
    assert c.frame_size == 3 + 3 + 3 * 18 + 3 + 2


def _nontrivial_state(env, seed=0):
    """MuJoCo C data at a perturbed pose with velocities, plus the matching target."""
    m = env.mj_model
    rng = np.random.default_rng(seed)
    d = mujoco.MjData(m)
    d.qpos[:] = np.asarray(env._default_qpos)
    d.qpos[env.index.qpos_adr] += rng.uniform(-0.1, 0.1, env.action_size)
    d.qpos[2] += 0.002
    d.qvel[:] = rng.uniform(-0.3, 0.3, m.nv)
    target = np.asarray(env._default_pose) + rng.uniform(-0.2, 0.2, env.action_size)
    d.ctrl[env.index.actuator] = target
    mujoco.mj_forward(m, d)
    return d, target


def test_one_control_step_matches_mujoco_c(walk_env):
    """n_substeps of mjx.step (float32) against mj_step (float64) from the same state."""
    m = walk_env.mj_model
    d, target = _nontrivial_state(walk_env)
    dx = mjx.put_data(m, d)
    step = jax.jit(lambda data: sim.step_physics(walk_env.mjx_model, data, walk_env.index,
                                                 jnp.asarray(target, jnp.float32),
                                                 walk_env.n_substeps, "position",
                                                 walk_env._kp, walk_env._kd))
    dx = step(dx)
    for _ in range(walk_env.n_substeps):
        mujoco.mj_step(m, d)
    # Both use the same Newton solver with 2 iterations; the gap is float32 rounding and
    # solver truncation over 4 steps: 1e-3 rad / m is ~0.06 degrees, far below what matters
    # for a policy, and a wrong actuator, sign or timestep gives errors of 1e-2 and more.
    np.testing.assert_allclose(np.asarray(dx.qpos), d.qpos, atol=1e-3)
    np.testing.assert_allclose(np.asarray(dx.qvel), d.qvel, atol=5e-2)


def test_sensors_match_mujoco_c(walk_env):
    m = walk_env.mj_model
    d, _ = _nontrivial_state(walk_env, seed=1)
    dx = jax.jit(mjx.forward)(walk_env.mjx_model, mjx.put_data(m, d))
    imu_x = sim.imu(dx, walk_env.index)
    i = walk_env.index
    np.testing.assert_allclose(np.asarray(imu_x["gyro"]), d.sensordata[i.gyro_adr:i.gyro_adr + 3],
                               atol=1e-4)
    np.testing.assert_allclose(np.asarray(imu_x["orientation"]),
                               d.sensordata[i.orientation_adr:i.orientation_adr + 4], atol=1e-5)
    np.testing.assert_allclose(np.asarray(imu_x["accelerometer"]),
                               d.sensordata[i.accelerometer_adr:i.accelerometer_adr + 3],
                               rtol=1e-3, atol=2e-2)


def test_observation_equals_numpy_build_from_c_sensors(walk_env):
    """The env's frame and the runner-side numpy frame agree on the same physical state."""
    m = walk_env.mj_model
    d, _ = _nontrivial_state(walk_env, seed=2)
    dx = jax.jit(mjx.forward)(walk_env.mjx_model, mjx.put_data(m, d))
    action = jnp.linspace(-0.5, 0.5, walk_env.action_size)
    command, phase = jnp.array([0.3, 0.0, 0.2]), jnp.array(1.0)
    env_frame = walk_env._frame(dx, action, command, phase)
    i = walk_env.index
    readings = {"gyro": d.sensordata[i.gyro_adr:i.gyro_adr + 3],
                "orientation": d.sensordata[i.orientation_adr:i.orientation_adr + 4],
                "joint_pos": d.qpos[i.qpos_adr], "joint_vel": d.qvel[i.dof_adr],
                "last_action": np.asarray(action), "command": np.asarray(command), "gait_phase": 1.0}
    np.testing.assert_allclose(np.asarray(env_frame), obs.frame(walk_env.contract, readings),
                               atol=1e-4)


def test_1024_envs_200_steps_random_actions(walk_env, batched):
    reset, step = batched
    n = 1024
    state = reset(jax.random.split(jax.random.PRNGKey(0), n))
    shapes = jax.tree.map(jnp.shape, state)

    @jax.jit
    def rollout(state, key):
        def body(s, k):
            s = step(s, jax.random.uniform(k, (n, walk_env.action_size), minval=-1, maxval=1))
            return s, (s.done, s.metrics["nan_resets"])
        return jax.lax.scan(body, state, jax.random.split(key, 200))

    state, (done, nans) = rollout(state, jax.random.PRNGKey(1))
    state, _ = rollout(state, jax.random.PRNGKey(2))
    assert rollout._cache_size() == 1, "a second rollout recompiled"
    assert jax.tree.map(jnp.shape, state) == shapes
    for leaf in jax.tree.leaves(state.obs):
        assert bool(jnp.all(jnp.isfinite(leaf)))
    assert bool(jnp.all(jnp.isfinite(state.data.qpos)))
    assert float(nans.sum()) == 0.0


def test_zero_action_stands_for_5_seconds(walk_env, batched):
    reset, step = batched
    n, steps = 8, int(round(5.0 / walk_env.dt))
    state = reset(jax.random.split(jax.random.PRNGKey(3), n))
    start_height = np.asarray(state.data.xpos[:, walk_env.index.torso_body, 2])
    zero = jnp.zeros((n, walk_env.action_size))

    @jax.jit
    def hold(state):
        def body(s, _):
            s = step(s, zero)
            return s, s.done
        return jax.lax.scan(body, state, None, length=steps)

    state, done = hold(state)
    assert float(done.sum()) == 0.0, "fell while holding the default pose"
    end_height = np.asarray(state.data.xpos[:, walk_env.index.torso_body, 2])
    np.testing.assert_allclose(end_height, start_height, atol=0.03)
    # settled: no jitter left in the joints
    assert float(jnp.abs(state.data.qvel[:, 6:]).max()) < 0.1


def test_nan_env_is_reset_and_does_not_poison_the_batch(walk_env, batched):
    from brax.envs.wrappers import training as brax_training

    env = brax_training.AutoResetWrapper(brax_training.VmapWrapper(walk_env))
    reset, step = jax.jit(env.reset), jax.jit(env.step)
    state = reset(jax.random.split(jax.random.PRNGKey(4), 4))
    good = state.data.qpos
    poisoned = state.pipeline_state.replace(qvel=state.data.qvel.at[1, 7].set(jnp.nan))
    state = state.replace(pipeline_state=poisoned)
    state = step(state, jnp.zeros((4, walk_env.action_size)))
    assert np.asarray(state.metrics["nan_resets"]).tolist() == [0, 1, 0, 0]
    assert np.asarray(state.done).tolist()[1] == 1
    assert bool(jnp.all(jnp.isfinite(state.data.qpos)))
    for leaf in jax.tree.leaves(state.obs):
        assert bool(jnp.all(jnp.isfinite(leaf)))
    # the poisoned env is back at its first state; the others moved on normally
    np.testing.assert_allclose(np.asarray(state.data.qpos[1]), np.asarray(good[1]))
    assert float(state.reward[1]) == 0.0


def test_commands_resample_within_episodes(walk_env, batched):
    reset, step = batched
    steps = walk_env._resample_steps
    state = reset(jax.random.split(jax.random.PRNGKey(5), 64))
    first = state.info["walk"].command
    lo, hi = np.array(walk_env.config.commands.low), np.array(walk_env.config.commands.high)
    assert np.all((np.asarray(first) >= lo) & (np.asarray(first) <= hi))

    @jax.jit
    def run(state):
        return jax.lax.fori_loop(0, steps, lambda _, s: step(s, jnp.zeros((64, 18))), state)

    later = run(state).info["walk"].command
    changed = np.any(np.asarray(later) != np.asarray(first), axis=1)
    assert changed.mean() > 0.5  # most get a new command (some draw zero twice)
    standing = np.all(np.asarray(first) == 0, axis=1).mean()
    assert 0.05 < standing < 0.4  # zero_probability 0.2 over 64 envs


def test_rough_terrain_and_foreign_robot_step(brax_humanoid_spec):
    """A humanoid MJCF nobody here wrote (torque motors, no IMU site) on rough ground."""
    env = mjxwalk.make_env("walk", brax_humanoid_spec, terrain="rough")
    assert env.index.hfield >= 0
    state = jax.jit(env.reset)(jax.random.PRNGKey(0))
    step = jax.jit(env.step)
    for _ in range(3):
        state = step(state, jnp.zeros(env.action_size))
    assert bool(jnp.all(jnp.isfinite(state.obs["state"])))
    assert state.obs["state"].shape == (env.contract.observation_size,)
    # the robot starts above the terrain under it, never inside it
    assert float(state.data.qpos[2]) > float(env.ground_height(state.data.qpos[:2]))
