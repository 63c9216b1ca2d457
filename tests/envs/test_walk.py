"""The walk env: physics parity with MuJoCo C, batched stepping, standing, NaN safety."""

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
import pytest
from mujoco import mjx

import mjxwalk
from mjxwalk import obs, sim
from mjxwalk.config import ServoModel


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
    target = jnp.asarray(target, jnp.float32)
    ideal = ServoModel(torque_speed=False, velocity_limit=False)  # MuJoCo C's plain PD
    params = sim.ServoParams(joint_offset=jnp.zeros(18), no_load_speed=jnp.full(18, 4.8),
                             backlash=jnp.zeros(18))
    step = jax.jit(lambda data: sim.step_physics(walk_env.mjx_model, data, walk_env.index,
                                                 target, target, 0, walk_env.n_substeps,
                                                 "position", params, ideal))
    dx = step(dx)
    for _ in range(walk_env.n_substeps):
        mujoco.mj_step(m, d)
    # Same model, same Newton solver, and sphere soles whose contacts MJX computes exactly as
    # MuJoCo C does: what is left is float32 rounding (measured ~1e-7 in qpos, ~4e-6 in qvel).
    # The bounds leave two orders of margin; a different contact manifold (a box sole) gave
    # 1e-3 in qpos and 0.1 in qvel, and a wrong gain, sign or timestep gives more.
    np.testing.assert_allclose(np.asarray(dx.qpos), d.qpos, atol=1e-5)
    np.testing.assert_allclose(np.asarray(dx.qvel), d.qvel, atol=5e-4)
    assert d.ncon >= 2, "the state should have the feet on the ground"


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
    env_frame = walk_env.sensing.clean_frame(walk_env.mjx_model, dx, action, command, phase, 0.0,
                                             jnp.zeros(0))
    i = walk_env.index
    readings = {"gyro": d.sensordata[i.gyro_adr:i.gyro_adr + 3],
                "orientation": d.sensordata[i.orientation_adr:i.orientation_adr + 4],
                "joint_pos": d.qpos[i.qpos_adr], "joint_vel": d.qvel[i.dof_adr],
                "last_action": np.asarray(action), "command": np.asarray(command), "gait_phase": 1.0}
    np.testing.assert_allclose(np.asarray(env_frame), obs.frame(walk_env.contract, readings),
                               atol=1e-4)


def test_1024_envs_200_steps_random_actions(walk_env):
    n = 1024
    reset, step = jax.jit(jax.vmap(walk_env.reset)), jax.jit(jax.vmap(walk_env.step))
    state = reset(jax.random.split(jax.random.PRNGKey(0), n))
    shapes = jax.tree.map(lambda x: (x.shape, x.dtype), state)
    actions = jax.random.uniform(jax.random.PRNGKey(1), (200, n, walk_env.action_size),
                                 minval=-1, maxval=1)
    nans = 0.0
    for t in range(200):  # feeding each output back in catches dtype/shape drift
        state = step(state, actions[t])
        nans += state.metrics["nan_resets"].sum()
    assert step._cache_size() == 1, "step recompiled during the rollout"
    assert jax.tree.map(lambda x: (x.shape, x.dtype), state) == shapes
    for leaf in jax.tree.leaves(state.obs):
        assert bool(jnp.all(jnp.isfinite(leaf)))
    assert bool(jnp.all(jnp.isfinite(state.data.qpos)))
    assert float(nans) == 0.0


def test_zero_action_stands_for_5_seconds(nominal_env, batched):
    walk_env = nominal_env
    reset, step = batched
    n, steps = 64, int(round(5.0 / walk_env.dt))
    state = reset(jax.random.split(jax.random.PRNGKey(3), n))
    start_height = np.asarray(state.data.xpos[:, walk_env.index.torso_body, 2])
    zero = jnp.zeros((n, walk_env.action_size))
    fell = 0.0
    for _ in range(steps):
        state = step(state, zero)
        fell += state.done.sum()
    assert float(fell) == 0.0, "fell while holding the default pose"
    end_height = np.asarray(state.data.xpos[:, walk_env.index.torso_body, 2])
    # the servos' steady-state sag under the robot's weight is a few mm
    np.testing.assert_allclose(end_height, start_height, atol=0.02)
    # settled: no jitter left in the joints
    assert float(jnp.abs(state.data.qvel[:, 6:]).max()) < 0.05


def test_nan_env_is_reset_and_does_not_poison_the_batch(nominal_env):
    walk_env = nominal_env
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


def test_commands_resample_within_episodes(nominal_env, batched):
    walk_env = nominal_env
    reset, step = batched
    state = reset(jax.random.split(jax.random.PRNGKey(5), 64))
    first = np.asarray(state.info["walk"].command)
    lo, hi = np.array(walk_env.config.commands.low), np.array(walk_env.config.commands.high)
    assert np.all((first >= lo) & (first <= hi))
    for _ in range(walk_env._resample_steps - 1):
        state = step(state, jnp.zeros((64, 18)))
    np.testing.assert_array_equal(np.asarray(state.info["walk"].command), first)  # held
    state = step(state, jnp.zeros((64, 18)))
    later = np.asarray(state.info["walk"].command)
    changed = np.any(later != first, axis=1)
    # zero_probability is 0.2: the rest get new values (ties have probability zero); allow
    # for the envs that drew zero twice
    assert changed.mean() > 0.7
    standing = np.all(first == 0, axis=1).mean()
    assert 0.05 < standing < 0.4  # 0.2 expected over 64 envs (binomial sd 0.05)


def test_yaw_tracking_pays_for_the_rate_averaged_over_a_gait_cycle(nominal_env, batched):
    """The yaw term compares the command with the mean torso yaw rate of the last gait
    cycle (so a step's twist averages out), not with the instantaneous rate."""
    reset, step = batched
    env = nominal_env
    cycle = round(1 / (env.config.gait_frequency * env.dt))
    n = 64  # the batch the other nominal tests step: one compile for all of them
    state = reset(jax.random.split(jax.random.PRNGKey(6), n))
    assert state.info["walk"].yaw_rates.shape == (n, cycle)
    actions = jax.random.uniform(jax.random.PRNGKey(7), (10, n, 18), minval=-1, maxval=1)
    for a in actions:  # random actions twist the torso back and forth
        before = np.asarray(state.info["walk"].yaw_rates)
        state = step(state, a)
    info = state.info["walk"]
    now = np.asarray(jax.vmap(sim.local_velocity)(state.data)[1])[:, 2]
    rates = np.asarray(info.yaw_rates)
    np.testing.assert_allclose(rates[:, 0], now, atol=1e-6)  # newest first
    np.testing.assert_allclose(rates[:, 1:], before[:, :-1], atol=1e-6)
    command = np.asarray(info.command)[:, 2]
    sigma, scale = env.config.yaw_tracking_sigma, env.config.rewards.tracking_ang_vel
    expected = scale * np.exp(-np.square(command - rates.mean(axis=1)) / sigma)
    np.testing.assert_allclose(np.asarray(state.metrics["reward/tracking_ang_vel"]), expected,
                               rtol=1e-5)
    # the instantaneous rate would pay differently: the test can tell the two apart
    instantaneous = scale * np.exp(-np.square(command - now) / sigma)
    assert np.max(np.abs(instantaneous - expected)) > 1e-2


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


def test_catch_targets_turn_with_the_heading():
    from mjxwalk.envs.walk import catch_targets

    quarter_turn = jnp.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    offsets = jnp.array([[0.0, 0.045], [0.0, -0.045]])  # left, right of the centre of mass
    targets = catch_targets(jnp.array([1.0, 2.0, 0.3]), jnp.array([0.5, 0.0]), quarter_turn,
                            offsets, 0.2)
    # capture point (1 + 0.5 x 0.2, 2); facing +y, the left foot stands at -x
    np.testing.assert_allclose(targets, [[1.055, 2.0], [1.145, 2.0]], atol=1e-6)


def test_catch_step_pays_touch_downs_in_the_window_after_each_kick(kidbot):
    """Kicks every 0.1 s and 0.06 s windows: the clock since the last kick restarts at each
    kick, and the term pays exactly the reward function on the env's own state, and only
    inside the window."""
    import dataclasses

    from mjxwalk.config import Pushes, RewardScales, WalkConfig, without_randomization
    from mjxwalk.envs.walk import catch_targets

    config = dataclasses.replace(
        without_randomization(WalkConfig()), pushes=Pushes(True, (0.1, 0.1), (0.3, 0.5)),
        rewards=RewardScales(catch_step=2.0), catch_step_window=0.06)
    env = mjxwalk.make_env("walk", kidbot, config=config)
    n = 32
    reset, step = jax.jit(jax.vmap(env.reset)), jax.jit(jax.vmap(env.step))
    targets_of = jax.vmap(lambda d: catch_targets(d.subtree_com[env.index.torso_body], d.qvel[0:2],
                                                  d.xmat[env.index.torso_body],
                                                  env.stance_offset, env.com_time_constant))
    state = reset(jax.random.split(jax.random.PRNGKey(3), n))
    actions = jax.random.uniform(jax.random.PRNGKey(4), (40, n, 18), minval=-1, maxval=1)
    paid_in, paid_out = 0, 0
    for a in actions:
        before = state.info["walk"]
        state = step(state, a)
        info = state.info["walk"]
        since = np.asarray(info.since_push)
        kicked = np.asarray(state.metrics["pushes"]) > 0
        live = np.asarray(state.done) == 0
        assert np.all(since[kicked] == 0)
        if np.all(np.asarray(before.since_push) < 1e5):
            np.testing.assert_allclose(since[~kicked & live],
                                       np.asarray(before.since_push)[~kicked & live] + env.dt,
                                       rtol=1e-5)
        landed = np.asarray(info.last_contact & ~before.last_contact)
        feet_xy = np.asarray(state.data.xpos[:, list(env.index.feet), :2])
        error = np.sum(np.square(feet_xy - np.asarray(targets_of(state.data))), axis=-1)
        expected = 2.0 * np.sum(landed * np.exp(-error / 0.005), axis=-1) * (since <= 0.06)
        paid = np.asarray(state.metrics["reward/catch_step"])
        np.testing.assert_allclose(paid[live], expected[live], rtol=1e-4, atol=1e-6)
        paid_in += int(np.sum(paid[live] > 0))
        paid_out += int(np.sum(paid[live & (since > 0.06)] > 0))
    assert paid_in > 0  # random actions stamp the feet down inside some windows
    assert paid_out == 0


def test_kick_recovery_window_frees_the_gait_terms_after_each_kick(kidbot):
    """Kicks every 0.1 s and a 0.05 s window: in the three steps from each kick the gait
    terms pay and cost nothing, in the two after it they do again; every other term is
    untouched, and the critic sees the share of the window left."""
    import dataclasses

    from mjxwalk.config import Pushes, WalkConfig, without_randomization
    from mjxwalk.envs.walk import RECOVERY_FREE_TERMS

    base = dataclasses.replace(without_randomization(WalkConfig()),
                               pushes=Pushes(True, (0.1, 0.1), (0.3, 0.5)))
    plain = mjxwalk.make_env("walk", kidbot, config=base)
    env = mjxwalk.make_env("walk", kidbot,
                           config=dataclasses.replace(base, kick_recovery_window=0.05))
    assert env.privileged_size == plain.privileged_size + 1
    assert env.privileged_parts[-1] == ("recovery_left", 1)
    assert env.mirror.privileged_state.size == env.privileged_size
    actions = jax.random.uniform(jax.random.PRNGKey(6), (12, 18), minval=-0.5, maxval=0.5)

    def rollout(e):
        def body(state, a):
            state = e.step(state, a)
            return state, (state.metrics, state.info["walk"].since_push,
                           state.obs["privileged_state"][-1], state.done)
        return jax.jit(lambda: jax.lax.scan(body, e.reset(jax.random.PRNGKey(5)), actions)[1])()

    # one env each: same robot, kicks and actions, so the two runs differ only in reward
    freed, since, left, done = rollout(env)
    kept, _, _, _ = rollout(plain)
    assert not np.any(np.asarray(done))
    since = np.asarray(since)
    inside = since < 0.05 - 1e-6
    assert inside.sum() >= 4 and (~inside).sum() >= 4
    for name in RECOVERY_FREE_TERMS:
        paid, unfreed = np.asarray(freed[f"reward/{name}"]), np.asarray(kept[f"reward/{name}"])
        np.testing.assert_array_equal(paid[inside], 0.0)
        np.testing.assert_allclose(paid[~inside], unfreed[~inside], rtol=1e-5, atol=1e-7)
    # pose costs something at every step of random actions: the window really hid it
    assert np.all(np.asarray(kept["reward/pose"])[inside] < 0)
    for name in ("tracking_lin_vel", "action_rate", "termination", "alive"):
        np.testing.assert_allclose(np.asarray(freed[f"reward/{name}"]),
                                   np.asarray(kept[f"reward/{name}"]), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(np.asarray(left), np.clip(1.0 - since / 0.05, 0.0, 1.0),
                               atol=1e-5)


def test_a_clock_action_sets_the_gait_frequency(clock_env, clock_batched):
    """With `gait_frequency_span` the last action value moves the clock, and only the clock:
    each env's phase advances at gait_frequency + span x a, the joints see the rest, and a
    change of the clock value pays the action-rate penalty like a joint's."""
    env = clock_env
    assert env.action_size == env.contract.action_size == 19
    mirror = env.mirror.action
    assert mirror.size == 19 and mirror.index[18] == 18 and mirror.sign[18] == 1.0
    assert mirror.is_involution()

    # 8 envs, as the mirror test steps, so the two share one compile
    rates = jnp.array([-1.0, 0.0, 0.5, 2.0, -0.5, 0.25, 1.0, -2.0])  # +-2.0 clip to +-1
    n = len(rates)
    reset, step = clock_batched
    state = reset(jax.random.split(jax.random.PRNGKey(5), n))
    joints = jax.random.uniform(jax.random.PRNGKey(6), (18,), minval=-0.5, maxval=0.5)
    action = jnp.concatenate([jnp.tile(joints, (n, 1)), rates[:, None]], axis=1)
    phase = np.asarray(state.info["walk"].phase, np.float64)
    frequency = 1.5 + 0.5 * np.clip(np.asarray(rates), -1, 1)
    first_rate_penalty = None
    for _ in range(10):
        state = step(state, action)
        phase = np.mod(phase + 2 * np.pi * frequency * env.dt, 2 * np.pi)
        if first_rate_penalty is None:
            first_rate_penalty = np.asarray(state.metrics["reward/action_rate"])
    walk = state.info["walk"]
    np.testing.assert_allclose(np.asarray(state.metrics["gait_frequency"]), frequency, rtol=1e-6)
    # compared on the circle, so a wrap near 2π does not count as an error
    np.testing.assert_allclose(np.cos(np.asarray(walk.phase) - phase), 1.0, atol=1e-8)
    # the clock value never reaches the joints: the same targets in every env
    np.testing.assert_allclose(np.asarray(walk.last_action), np.tile(joints, (n, 1)))
    np.testing.assert_allclose(np.asarray(walk.targets[:, 0]),
                               np.tile(np.asarray(walk.targets[0, 0]), (n, 1)), atol=1e-7)
    # the critic sees the rate set last, as the last privileged value (no recovery window)
    assert env.privileged_parts[-2:] == [("last_clock", 1), ("recovery_left", 0)]
    np.testing.assert_allclose(np.asarray(state.obs["privileged_state"][:, -1]),
                               np.clip(np.asarray(rates), -1, 1))
    # from rest, the first step's change is the whole action, the clock value included
    expected = env.config.rewards.action_rate * (
        float(jnp.sum(joints ** 2)) + np.clip(np.asarray(rates), -1, 1) ** 2)
    np.testing.assert_allclose(first_rate_penalty, expected, rtol=1e-5)


def test_a_phase_offset_action_shifts_the_clock_the_policy_sees(phase_offset_env,
                                                                phase_offset_batched):
    """With `gait_phase_offset_span` the last action value shifts the gait angle the actor
    and critic observe and the feet are rewarded on, by span x a, at once and only for that
    step, and the frame shows the shift: the clock underneath runs on at `gait_frequency`
    whatever the actions."""
    from mjxwalk import rewards

    env, cfg = phase_offset_env, phase_offset_env.config
    assert env.action_size == env.contract.action_size == 19
    assert env.contract.gait_phase_offset_span == 1.0 and env.contract.gait_frequency_span == 0
    assert env.contract.obs_blocks[-1].name == "gait_phase_shift"
    mirror = env.mirror.action
    assert mirror.index[18] == 18 and mirror.sign[18] == 1.0 and mirror.is_involution()

    # 8 envs, as the mirror test steps, so the two share one compile; +-2.0 clip to +-1
    shifts = jnp.array([-1.0, 0.0, 0.5, 2.0, -0.5, 0.25, 1.0, -2.0])
    n = len(shifts)
    reset, step = phase_offset_batched
    state = reset(jax.random.split(jax.random.PRNGKey(8), n))
    # a walking command, so the feet's reward depends on the clock (standing, it does not)
    walk = state.info["walk"].replace(command=jnp.tile(jnp.array([0.3, 0.1, 0.4]), (n, 1)))
    state = state.replace(info={**state.info, "walk": walk})
    clock = np.asarray(walk.phase, np.float64)
    gait = env.contract.block_slice("gait_phase")
    shift_at = env.contract.block_slice("gait_phase_shift")
    joints = jnp.zeros((n, 18))
    for shift in (shifts, -shifts):  # a new shift replaces the last, it does not add to it
        state = step(state, jnp.concatenate([joints, shift[:, None]], axis=1))
        clock = clock + 2 * np.pi * 1.5 * env.dt
        walk = state.info["walk"]
        np.testing.assert_allclose(np.cos(np.asarray(walk.phase) - clock), 1.0, atol=1e-8)
        applied = np.clip(np.asarray(shift), -1, 1)
        seen = clock + applied
        np.testing.assert_allclose(np.asarray(state.metrics["gait_phase_offset"]), applied,
                                   rtol=1e-6)
        np.testing.assert_allclose(np.asarray(state.metrics["gait_phase_offset_abs"]),
                                   np.abs(applied), rtol=1e-6)
        # the newest frame comes first in the actor's observation and the critic's
        for key in ("state", "privileged_state"):
            o = np.asarray(state.obs[key])
            np.testing.assert_allclose(o[:, gait], np.stack([np.cos(seen), np.sin(seen)], 1),
                                       atol=1e-5)
            np.testing.assert_allclose(o[:, shift_at][:, 0], applied, atol=1e-6)
        clearance = np.asarray(walk.feet_pos[:, :, 2]) - np.asarray(env._foot_rest_height)

        def feet_phase(phase):
            return np.array([cfg.rewards.feet_phase * float(rewards.feet_phase(
                jnp.asarray(clearance[i]), phase[i], walk.command[i], cfg.swing_height,
                cfg.feet_phase_sigma)) for i in range(n)])

        paid = np.asarray(state.metrics["reward/feet_phase"])
        np.testing.assert_allclose(paid, feet_phase(seen), rtol=1e-4)
        # and not on the clock underneath, where the shift is large enough to matter
        unshifted = feet_phase(clock)
        assert np.sum(np.abs(paid - unshifted) > 1e-3 * np.abs(unshifted)) >= 4


def test_an_observed_action_latency_is_the_episodes_delay(kidbot):
    """With `observe_action_latency` the last value of every frame is the episode's drawn
    action delay in control periods: exact for the critic; for the actor off by the
    episode's constant timing error, and by the frame's noise."""
    import dataclasses

    from mjxwalk.config import WalkConfig

    config = dataclasses.replace(WalkConfig(), observe_action_latency=True)
    env = mjxwalk.make_env("walk", kidbot, config=config)
    assert env.contract.obs_blocks[-1].name == "action_latency"
    n, frame = 64, env.contract.frame_size
    state = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.PRNGKey(3), n))
    p = state.info["walk"].params
    delay = np.asarray(p.action_delay + p.action_delay_substeps / env.n_substeps)
    # kidbot's defaults draw 0-1 periods plus 0-3 of 4 substeps: 8 values, all in 64 episodes
    assert len(np.unique(delay)) == 8
    np.testing.assert_allclose(np.asarray(state.obs["privileged_state"][:, frame - 1]), delay,
                               atol=1e-6)
    error = np.asarray(p.action_latency_error)
    low, high = config.sensors.action_latency_error
    assert np.all((error >= low) & (error <= high)) and np.std(error) > (high - low) / 10
    noise = np.asarray(state.obs["state"][:, frame - 1]) - delay - error
    assert np.all(np.abs(noise) <= config.noise.action_latency + 1e-6)
    assert np.std(noise) > config.noise.action_latency / 10  # the noise is there, not just allowed
