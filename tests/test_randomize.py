"""Randomization: every quantity spreads over its configured range and stays inside it, and
switched off gives the nominal model exactly."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from mjxwalk import randomize
from mjxwalk.config import (Latency, ModelRandomization, Noise, SensorRandomization, ServoModel,
                            WalkConfig)

N = 512  # envs per check: the chance that none of 512 uniform draws falls in the outer 5%
SPREAD = 0.05  # of a range on one side is 0.95**512 ~ 4e-12


def spread_inside(values, lo, hi):
    values = np.asarray(values)
    assert values.min() >= lo - 1e-6 and values.max() <= hi + 1e-6, (values.min(), values.max())
    width = hi - lo
    assert values.min() <= lo + SPREAD * width and values.max() >= hi - SPREAD * width


@pytest.fixture(scope="module")
def sampled(walk_env):
    cfg = ModelRandomization()
    keys = jax.random.split(jax.random.PRNGKey(0), N)
    model, in_axes = randomize.randomize(walk_env.mjx_model, keys, cfg, walk_env.index, "position")
    return model, in_axes, cfg


def test_friction(walk_env, sampled):
    model, _, cfg = sampled
    idx = walk_env.index
    spread_inside(model.geom_friction[:, idx.floor, 0], *cfg.floor_friction)
    for g in np.concatenate(idx.foot_geoms):
        spread_inside(model.geom_friction[:, g, 0], *cfg.foot_friction)


def test_masses_payload_com(walk_env, sampled):
    model, _, cfg = sampled
    nominal = walk_env.mj_model
    t = walk_env.index.torso_body
    for body in range(2, nominal.nbody):
        if nominal.body_mass[body] > 0:
            spread_inside(model.body_mass[:, body] / nominal.body_mass[body], *cfg.mass_scale)
            ratio = model.body_inertia[:, body, 0] / nominal.body_inertia[body, 0]
            np.testing.assert_allclose(ratio, model.body_mass[:, body] / nominal.body_mass[body],
                                       rtol=1e-5)
    lo, hi = cfg.mass_scale
    torso = np.asarray(model.body_mass[:, t])
    assert torso.min() >= nominal.body_mass[t] * lo + cfg.payload[0] - 1e-6
    assert torso.max() <= nominal.body_mass[t] * hi + cfg.payload[1] + 1e-6
    for axis in range(3):
        spread_inside(model.body_ipos[:, t, axis] - nominal.body_ipos[t, axis], *cfg.com_offset)


def test_joint_dynamics(walk_env, sampled):
    model, _, cfg = sampled
    nominal, dofs = walk_env.mj_model, walk_env.index.dof_adr
    for field, bounds in (("dof_armature", cfg.armature_scale), ("dof_damping", cfg.damping_scale),
                          ("dof_frictionloss", cfg.frictionloss_scale)):
        spread_inside(getattr(model, field)[:, dofs] / getattr(nominal, field)[dofs], *bounds)


def test_servo_gains_and_limits(walk_env, sampled):
    model, _, cfg = sampled
    nominal, acts = walk_env.mj_model, walk_env.index.actuator
    kp = model.actuator_gainprm[:, acts, 0] / nominal.actuator_gainprm[acts, 0]
    spread_inside(kp, *cfg.kp_scale)
    # MuJoCo's PD stays consistent: bias = -gain * q
    np.testing.assert_allclose(model.actuator_biasprm[:, acts, 1], -model.actuator_gainprm[:, acts, 0])
    spread_inside(model.actuator_forcerange[:, acts, 1] / nominal.actuator_forcerange[acts, 1],
                  *cfg.torque_limit_scale)


def test_kd_scale_on_a_servo_with_damping_gain(walk_env):
    model = walk_env.mjx_model
    acts = walk_env.index.actuator
    model = model.replace(actuator_biasprm=model.actuator_biasprm.at[acts, 2].set(-0.5))
    keys = jax.random.split(jax.random.PRNGKey(1), N)
    batched, _ = randomize.randomize(model, keys, ModelRandomization(), walk_env.index, "position")
    spread_inside(batched.actuator_biasprm[:, acts, 2] / -0.5, *ModelRandomization().kd_scale)


def test_gravity_tilt(sampled):
    model, _, cfg = sampled
    g = np.asarray(model.opt.gravity)
    np.testing.assert_allclose(np.linalg.norm(g, axis=1), 9.81, rtol=1e-5)
    spread_inside(np.arccos(-g[:, 2] / 9.81), *cfg.gravity_tilt)


def test_in_axes_mark_exactly_the_batched_fields(sampled):
    model, in_axes, _ = sampled
    batched = {name for name in randomize.FIELDS if getattr(in_axes, name) == 0}
    assert batched == set(randomize.FIELDS)
    assert in_axes.opt.gravity == 0 and in_axes.body_pos is None
    assert model.geom_friction.shape[0] == N and model.body_pos.ndim == 2  # unbatched


def off(cfg: ModelRandomization) -> ModelRandomization:
    return ModelRandomization(**{f.name: None for f in dataclasses.fields(cfg) if f.name != "enabled"})


@pytest.mark.parametrize("cfg", [ModelRandomization(enabled=False), off(ModelRandomization())],
                         ids=["disabled", "every-range-off"])
def test_off_gives_the_nominal_model_exactly(walk_env, cfg):
    keys = jax.random.split(jax.random.PRNGKey(2), 4)
    model, _ = randomize.randomize(walk_env.mjx_model, keys, cfg, walk_env.index, "position")
    for name in randomize.FIELDS:
        for i in range(4):
            np.testing.assert_array_equal(getattr(model, name)[i], getattr(walk_env.mjx_model, name))
    np.testing.assert_array_equal(model.opt.gravity[0], walk_env.mjx_model.opt.gravity)


def test_each_quantity_switches_off_alone(walk_env):
    keys = jax.random.split(jax.random.PRNGKey(3), 8)
    nominal = walk_env.mjx_model
    cfg = dataclasses.replace(ModelRandomization(), floor_friction=None)
    model, _ = randomize.randomize(nominal, keys, cfg, walk_env.index, "position")
    np.testing.assert_array_equal(model.geom_friction[:, walk_env.index.floor],
                                  np.broadcast_to(nominal.geom_friction[walk_env.index.floor], (8, 3)))
    assert np.unique(np.asarray(model.dof_damping[:, walk_env.index.dof_adr[0]])).size == 8


# ---------------------------------------------------------------------- per episode

@pytest.fixture(scope="module")
def episodes():
    keys = jax.random.split(jax.random.PRNGKey(4), N)
    cfg = WalkConfig()
    servo = dataclasses.replace(cfg.servo, backlash=(0.0, 0.02))
    lat = Latency(action_steps=(0, 2), action_substeps=(0, 3), imu_steps=(0, 2))
    sample = jax.vmap(lambda k: randomize.sample_episode(k, 18, jnp.full(18, 4.82), cfg.sensors,
                                                         servo, lat))
    return sample(keys), cfg, servo, lat


def test_episode_sensor_errors(episodes):
    p, cfg, _, _ = episodes
    spread_inside(p.servo.joint_offset, *cfg.sensors.joint_zero_offset)
    spread_inside(p.gyro_bias, *cfg.sensors.gyro_bias)
    spread_inside(p.gravity_bias, *cfg.sensors.gravity_bias)
    angle = 2 * np.arccos(np.clip(np.asarray(p.imu_rotation[:, 0]), -1, 1))
    spread_inside(angle, *cfg.sensors.imu_misalignment)
    np.testing.assert_allclose(np.linalg.norm(p.imu_rotation, axis=1), 1.0, rtol=1e-6)


def test_episode_servo_spread_and_delays(episodes):
    p, _, servo, lat = episodes
    spread_inside(p.servo.no_load_speed / 4.82, *servo.no_load_speed_scale)
    spread_inside(p.servo.backlash, *servo.backlash)
    for field, (lo, hi) in (("action_delay", lat.action_steps),
                            ("action_delay_substeps", lat.action_substeps),
                            ("imu_delay", lat.imu_steps)):
        assert set(np.unique(getattr(p, field)).tolist()) == set(range(lo, hi + 1)), field


def test_episode_off_is_nominal():
    p = randomize.sample_episode(jax.random.PRNGKey(5), 18, jnp.full(18, 4.82),
                                 SensorRandomization(None, None, None, None),
                                 ServoModel(no_load_speed_scale=None, backlash=None),
                                 Latency((0, 0), (0, 0), (0, 0)))
    for leaf in (p.servo.joint_offset, p.servo.backlash, p.gyro_bias, p.gravity_bias):
        np.testing.assert_array_equal(leaf, 0.0)
    np.testing.assert_array_equal(p.servo.no_load_speed, np.float32(4.82))
    np.testing.assert_array_equal(p.imu_rotation, [1, 0, 0, 0])
    assert int(p.action_delay) == int(p.action_delay_substeps) == int(p.imu_delay) == 0


def test_noise_per_channel_and_level(walk_env):
    c = walk_env.contract
    keys = jax.random.split(jax.random.PRNGKey(6), N)
    noise = jax.vmap(lambda k: randomize.frame_noise(k, c, Noise()))(keys)
    scales = {b.name: b.scale for b in c.obs_blocks}
    for name, amp in (("joint_pos", 0.01), ("joint_vel", 0.5), ("gyro", 0.1), ("gravity", 0.03)):
        spread_inside(noise[:, c.block_slice(name)], -amp * scales[name], amp * scales[name])
    np.testing.assert_array_equal(noise[:, c.block_slice("command")], 0.0)
    silent = randomize.frame_noise(keys[0], c, Noise(level=0.0))
    np.testing.assert_array_equal(silent, 0.0)


def test_push_changes_base_velocity_by_the_configured_amount(nominal_env):
    state = jax.jit(nominal_env.reset)(jax.random.PRNGKey(7))
    sizes = []
    for k in jax.random.split(jax.random.PRNGKey(8), 64):
        pushed, kick = randomize.apply_push(state.data, k, (0.1, 0.5))
        change = np.asarray(pushed.qvel[0:2] - state.data.qvel[0:2])
        np.testing.assert_allclose(change, kick, atol=1e-6)
        np.testing.assert_array_equal(pushed.qvel[2:], state.data.qvel[2:])
        sizes.append(np.linalg.norm(change))
    assert 0.1 - 1e-6 <= min(sizes) and max(sizes) <= 0.5 + 1e-6


def test_turning_kick_spins_the_torso_within_its_bound(nominal_env):
    state = jax.jit(nominal_env.reset)(jax.random.PRNGKey(7))
    keys = jax.random.split(jax.random.PRNGKey(8), 1024)
    shoved, shove = jax.vmap(lambda k: randomize.apply_push(state.data, k, (0.1, 0.5)))(keys)
    pushed, kick = jax.vmap(
        lambda k: randomize.apply_push(state.data, k, (0.1, 0.5), angular_velocity=1.0))(keys)
    # the same shove as without the option, so runs without it keep their streams
    np.testing.assert_array_equal(kick, shove)
    np.testing.assert_array_equal(pushed.qvel[:, 0:3], shoved.qvel[:, 0:3])
    np.testing.assert_array_equal(pushed.qvel[:, 6:], shoved.qvel[:, 6:])
    spins = np.asarray(pushed.qvel[:, 3:6] - state.data.qvel[3:6])
    assert np.abs(spins).max() <= 1.0 + 1e-6
    # uniform in +-1 on each axis: 1024 draws reach past 0.9 both ways
    assert np.all(spins.max(axis=0) > 0.9) and np.all(spins.min(axis=0) < -0.9)
    # drawn apart from the shove: no axis follows its size or components (|r| of independent
    # draws is under 0.1 in 1024 samples beyond 3 standard errors; a shared key gives ~1)
    kick = np.asarray(kick)
    for shove_part in (np.linalg.norm(kick, axis=1), kick[:, 0], kick[:, 1]):
        for axis in range(3):
            assert abs(np.corrcoef(shove_part, spins[:, axis])[0, 1]) < 0.1
