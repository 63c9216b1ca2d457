"""Realism in the walk env: delays, sensor errors, pushes, privileged view, curriculum."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mjxwalk
from mjxwalk import geometry, sim
from mjxwalk.config import Latency, WalkConfig, override, without_randomization
from mjxwalk.wrappers import BatchedEnv, model_keys, model_keys_of


def env_with(kidbot, **changes):
    return mjxwalk.make_env("walk", kidbot, config=override(without_randomization(WalkConfig()),
                                                            **changes))


@pytest.fixture(scope="module")
def delayed_env(kidbot):
    return env_with(kidbot, latency={"action_steps": (2, 2), "imu_steps": (1, 1)})


def test_action_reaches_the_servos_exactly_k_steps_later(delayed_env):
    """A step change in the action shows up in the joint targets 2 control steps later."""
    env = delayed_env
    knee = env.robot.joint_names.index("left_knee")
    reset, step = jax.jit(env.reset), jax.jit(env.step)
    state = reset(jax.random.PRNGKey(0))
    zero = jnp.zeros(env.action_size)
    kick = zero.at[knee].set(0.2)  # 0.06 rad: far from the torque limit, so ctrl == target
    for _ in range(3):
        state = step(state, zero)
    old = float(env._default_pose[knee])
    new = old + 0.2 * float(env._action_scale[knee])
    seen = []
    for _ in range(4):
        state = step(state, kick)
        seen.append(float(state.data.ctrl[env.index.actuator[knee]]))
    np.testing.assert_allclose(seen, [old, old, new, new], atol=1e-5)


def test_substep_delay_holds_the_previous_target(nominal_env, batched):
    env = nominal_env
    reset, _ = batched  # one env of the batch the other nominal tests compiled
    state = jax.tree.map(lambda x: x[0], reset(jax.random.split(jax.random.PRNGKey(1), 64)))
    prev, new = env._default_pose, env._default_pose + 0.05
    params = state.info["walk"].params.servo
    # 3 substeps whose first 3, then first 2, hold the previous target: the delay is an
    # argument of the compiled physics, the substep count is not
    physics = jax.jit(lambda d, delay: sim.step_physics(
        env.mjx_model, d, env.index, new, prev, delay, 3, "position", params, env.config.servo))
    for delay, expected in ((3, prev), (2, new)):
        data = physics(state.data, delay)
        np.testing.assert_allclose(data.ctrl[env.index.actuator], expected, atol=1e-5)


def test_imu_reading_lags_by_its_delay(delayed_env):
    env = delayed_env
    reset, step = jax.jit(env.reset), jax.jit(env.step)
    state = reset(jax.random.PRNGKey(2))
    gyro = env.contract.block_slice("gyro")
    scale = env.contract.obs_blocks[0].scale
    true_gyro = []
    observed = []
    actions = jax.random.uniform(jax.random.PRNGKey(3), (6, env.action_size), minval=-1, maxval=1)
    for a in actions:
        state = step(state, a)
        true_gyro.append(np.asarray(sim.imu(state.data, env.index)["gyro"]))
        observed.append(np.asarray(state.obs["state"][gyro]) / scale)
    # the observation at step t carries the gyro of step t-1
    np.testing.assert_allclose(observed[1:], true_gyro[:-1], atol=1e-5)


def test_sensor_errors_reach_the_actor_only(kidbot):
    env = env_with(kidbot, sensors={"joint_zero_offset": (0.02, 0.02), "gyro_bias": (0.1, 0.1)})
    state = jax.jit(env.reset)(jax.random.PRNGKey(4))
    c = env.contract
    actor = np.asarray(state.obs["state"])[:c.frame_size]  # the newest frame comes first
    critic = np.asarray(state.obs["privileged_state"])[:c.frame_size]
    np.testing.assert_allclose((actor - critic)[c.block_slice("joint_pos")], 0.02, atol=1e-5)
    np.testing.assert_allclose((actor - critic)[c.block_slice("gyro")], 0.1 * 0.25, atol=1e-5)
    # the servo, reading the same encoder, holds the joint 0.02 rad short of its target
    step = jax.jit(env.step)
    for _ in range(50):
        state = step(state, jnp.zeros(env.action_size))
    arm = env.robot.joint_names.index("left_elbow")  # unloaded joint: no sag
    q = float(state.data.qpos[env.index.qpos_adr[arm]])
    assert q == pytest.approx(float(env._default_pose[arm]) - 0.02, abs=3e-3)


def test_imu_orientation_tilts_with_gravity(nominal_env):
    """A tilted gravity (the sloped floor of `gravity_tilt`) shows in the gravity reading of
    actor and critic, as on a robot whose IMU finds "down" from its accelerometer; the
    world-relative sensor quaternion would hide the slope from the policy."""
    env = nominal_env
    tilt = 0.05  # rad, the top of the default range
    g = 9.81 * jnp.array([np.sin(tilt), 0.0, -np.cos(tilt)])
    # placed as the model's own arrays are, so both models run one compiled reset
    g = jax.device_put(g, env.mjx_model.opt.gravity.sharding)
    model = env.mjx_model.replace(opt=env.mjx_model.opt.replace(gravity=g))
    reset = jax.jit(env.reset_with)
    c, i = env.contract, env.index
    gravity = c.block_slice("gravity")
    for m, down in ((model, np.asarray(g) / 9.81), (env.mjx_model, np.array([0.0, 0.0, -1.0]))):
        state = reset(m, jax.random.PRNGKey(3))
        quat = np.asarray(state.data.sensordata[i.orientation_adr:i.orientation_adr + 4])
        want = geometry.rotate_inverse(quat, down)
        for view in ("state", "privileged_state"):
            np.testing.assert_allclose(np.asarray(state.obs[view])[gravity], want, atol=1e-5)
    # the robot stands upright on the floor, so it reads the slope: about `tilt` off vertical
    reading = np.asarray(reset(model, jax.random.PRNGKey(3)).obs["state"])[gravity]
    level = np.asarray(reset(env.mjx_model, jax.random.PRNGKey(3)).obs["state"])[gravity]
    angle = np.arccos(np.clip(reading @ level, -1.0, 1.0))
    assert angle == pytest.approx(tilt, abs=1e-4)


def test_pushes_happen_at_the_configured_interval(kidbot):
    env = env_with(kidbot, pushes={"enabled": True, "interval": (0.1, 0.1), "velocity": (0.3, 0.3)})
    reset, step = jax.jit(env.reset), jax.jit(env.step)
    state = reset(jax.random.PRNGKey(5))
    pushes, jumps = [], []
    for _ in range(15):
        before = np.asarray(state.data.qvel[0:2])
        state = step(state, jnp.zeros(env.action_size))
        pushes.append(float(state.metrics["pushes"]))
        jumps.append(np.linalg.norm(np.asarray(state.data.qvel[0:2]) - before))
    assert sum(pushes) == 3  # every 5 steps (0.1 s) over 15 steps
    pushed = [j for j, p in zip(jumps, pushes) if p]
    calm = [j for j, p in zip(jumps, pushes) if not p]
    assert min(pushed) > 0.2 and max(calm) < 0.1  # the kick dominates one step's dynamics


@pytest.fixture(scope="module")
def randomized(walk_env):
    """8 fully randomized kidbot envs (`BatchedEnv`) and their jitted reset and step."""
    batched = BatchedEnv(walk_env, 8)
    return batched, jax.jit(batched.reset), jax.jit(batched.step)


def test_privileged_view_carries_friction_payload_and_delays(walk_env, randomized):
    batched, reset, _ = randomized
    # model keys given, as training gives them: the other tests' compiled reset
    state = reset(jax.random.split(jax.random.PRNGKey(6), 8), model_keys(6, 8))
    layout = offsets(walk_env)
    priv = np.asarray(state.obs["privileged_state"])
    model, _ = batched.model_of(state)
    np.testing.assert_allclose(priv[:, layout["floor_friction"]],
                               model.geom_friction[:, walk_env.index.floor, 0], rtol=1e-6)
    t = walk_env.index.torso_body
    np.testing.assert_allclose(priv[:, layout["payload"]],
                               model.body_mass[:, t] - walk_env.mj_model.body_mass[t],
                               atol=1e-5)
    p = state.info["walk"].params
    np.testing.assert_allclose(priv[:, layout["delays"]],
                               p.action_delay + p.action_delay_substeps / walk_env.n_substeps)
    assert priv.shape[1] == walk_env.privileged_size
    # the actor sees none of it: its size is the contract's
    assert state.obs["state"].shape[1] == walk_env.contract.observation_size


def offsets(env):
    """Start of each part of the privileged observation, by name."""
    starts, start = {}, 0
    for name, size in env.privileged_parts:
        starts[name] = start
        start += size
    return starts


def test_batched_envs_step_their_own_models(walk_env, randomized):
    """Same start, same actions, different friction/masses: the envs drift apart. Another
    set of robots runs in the same compiled step: the models are state, not constants."""
    batched, reset, step = randomized
    same_start = jnp.tile(jax.random.PRNGKey(7)[None], (8, 1))  # identical resets

    def rollout(seed):
        state = reset(same_start, model_keys(seed, 8))
        np.testing.assert_array_equal(state.data.qpos[0], state.data.qpos[1])
        for _ in range(20):
            state = step(state, jnp.zeros((8, walk_env.action_size)))
        return state

    state = rollout(3)
    assert float(jnp.abs(state.data.qpos[0] - state.data.qpos[1]).max()) > 1e-4
    # each env keeps its robot through the steps (and the auto-reset)
    np.testing.assert_array_equal(batched.model_of(state)[0].body_mass,
                                  batched.draw_models(model_keys(3, 8))["body_mass"])
    other = rollout(4)
    assert float(jnp.abs(other.data.qpos[0] - state.data.qpos[0]).max()) > 1e-4
    assert step._cache_size() == 1


def test_reset_refuses_key_counts_other_than_the_batch(walk_env):
    batched = BatchedEnv(walk_env, 8)
    keys = jax.random.split(jax.random.PRNGKey(0), 8)
    with pytest.raises(ValueError, match=r"needs 8 keys \(one per env\), got 4"):
        batched.reset(keys[:4])
    with pytest.raises(ValueError, match=r"needs 8 model keys \(one per env\), got 4"):
        batched.reset(keys, model_keys(0, 4))


def test_envs_draw_their_models_from_their_reset_keys_by_default():
    keys = jax.random.split(jax.random.PRNGKey(0), 4)
    drawn = np.asarray(model_keys_of(keys))
    assert len({tuple(k) for k in drawn}) == 4  # a robot per env
    # a stream of their own: not a key the reset itself uses
    assert not np.any(np.all(drawn[:, None] == np.asarray(keys)[None], axis=-1))
    # an env's robot follows from its own key alone, not from the batch it is in
    np.testing.assert_array_equal(model_keys_of(keys[:2]), drawn[:2])


# ---------------------------------------------------------------------- curriculum

@pytest.fixture(scope="module")
def rough_env(kidbot):
    cfg = override(WalkConfig(), terrain="rough",
                   terrain_layout={"levels": 4, "columns": 3},
                   curriculum={"start_level": 0})
    return mjxwalk.make_env("walk", kidbot, config=cfg)


def test_curriculum_moves_up_and_down(rough_env):
    env = rough_env
    state = jax.jit(env.reset)(jax.random.PRNGKey(8))
    info = state.info["walk"].replace(level=jnp.int32(2), start_xy=jnp.zeros(2),
                                      commanded_distance=jnp.float32(4.0))
    data = state.data

    def level_after(walked, fell):
        d = data.replace(qpos=data.qpos.at[0:2].set(jnp.array([walked, 0.0])))
        return int(env.next_level(info, d, jnp.array(fell)))

    assert level_after(3.0, False) == 3  # walked 75% of 4 m: up
    assert level_after(1.5, False) == 2  # 37%: stays
    assert level_after(0.5, True) == 1  # fell after 12%: down
    assert level_after(1.5, True) == 2  # fell but got far enough: stays
    top = info.replace(level=jnp.int32(3))
    d = data.replace(qpos=data.qpos.at[0:2].set(jnp.array([4.0, 0.0])))
    assert int(env.next_level(top, d, jnp.array(False))) == 3  # capped at the hardest level
    bottom = info.replace(level=jnp.int32(0))
    assert int(env.next_level(bottom, data, jnp.array(True))) == 0


def test_respawn_lands_on_the_new_level(rough_env):
    env = rough_env
    layout = env.config.terrain_layout
    batched = BatchedEnv(env, 8, episode_length=3)
    reset, step = jax.jit(batched.reset), jax.jit(batched.step)
    state = reset(jax.random.split(jax.random.PRNGKey(9), 8))
    # pretend every env earned level 2 in the episode that is about to end
    walk = state.info["walk"].replace(level=jnp.full(8, 2, jnp.int32),
                                      commanded_distance=jnp.zeros(8))
    state = state.replace(info={**state.info, "walk": walk})
    for _ in range(3):
        state = step(state, jnp.zeros((8, env.action_size)))
    assert np.all(np.asarray(state.info["steps"]) == 0)  # just restarted
    np.testing.assert_array_equal(state.info["walk"].level, 2)
    y = np.asarray(state.data.qpos[:, 1])
    row = np.floor((y + layout.levels * layout.tile_size / 2) / layout.tile_size)
    np.testing.assert_array_equal(row, 2)
    # standing on the ground of the new tile, not inside it or above it
    for xy, z in zip(np.asarray(state.data.qpos[:, :2]), np.asarray(state.data.qpos[:, 2])):
        ground = float(env.ground_height(jnp.asarray(xy)))
        assert 0.3 < z - ground < 0.45


def test_latency_range_is_checked(kidbot):
    with pytest.raises(mjxwalk.errors.ConfigError, match="action_substeps"):
        env_with(kidbot, latency={"action_substeps": (0, 4)})


def test_without_randomization_switches_everything_off():
    cfg = without_randomization(WalkConfig())
    assert not cfg.randomization.enabled and not cfg.pushes.enabled and cfg.noise.level == 0
    assert cfg.latency == Latency((0, 0), (0, 0), (0, 0))
    assert all(v is None for v in dataclasses.asdict(cfg.sensors).values())


def test_initial_pose_and_velocity_perturbation(nominal_env, batched):
    reset, _ = batched
    cfg = nominal_env.config
    state = reset(jax.random.split(jax.random.PRNGKey(10), 64))
    offsets = np.asarray(state.data.qpos[:, nominal_env.index.qpos_adr] - nominal_env._default_pose)
    lo, hi = nominal_env._lower, nominal_env._upper
    free = np.asarray((nominal_env._default_pose - lo > cfg.initial_joint_noise)
                      & (hi - nominal_env._default_pose > cfg.initial_joint_noise))
    off = offsets[:, free]
    assert np.abs(off).max() <= cfg.initial_joint_noise + 1e-6
    assert off.max() > 0.8 * cfg.initial_joint_noise and off.min() < -0.8 * cfg.initial_joint_noise
    vel = np.asarray(state.data.qvel[:, :6])
    assert np.abs(vel).max() <= cfg.initial_velocity_noise + 1e-6
    still = mjxwalk.make_env("walk", nominal_env.robot,
                             config=override(cfg, initial_joint_noise=0.0, initial_velocity_noise=0.0))
    s = jax.jit(still.reset)(jax.random.PRNGKey(11))
    np.testing.assert_array_equal(s.data.qpos[still.index.qpos_adr], still._default_pose)
    np.testing.assert_array_equal(s.data.qvel, 0.0)
