import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mjxwalk import obs
from mjxwalk.errors import ContractError
from test_contract import make as make_contract


def contract(history=2, gait=True, latency=False):
    blocks = obs.make_blocks(2, gait_phase=gait, action_latency=latency)
    return make_contract(obs_blocks=blocks, history_length=history)


def readings(rng, xp=np):
    q = rng.normal(size=4)
    return {"gyro": xp.asarray(rng.normal(size=3)), "orientation": xp.asarray(q / np.linalg.norm(q)),
            "joint_pos": xp.asarray(rng.normal(size=2)), "joint_vel": xp.asarray(rng.normal(size=2)),
            "last_action": xp.asarray(rng.normal(size=2)), "command": xp.asarray(rng.normal(size=3)),
            "gait_phase": xp.asarray(rng.uniform(0, 6.28)),
            "action_latency": xp.asarray(rng.uniform(0, 2))}


def test_gravity_upright_and_tilted():
    np.testing.assert_allclose(obs.gravity_in_frame(np.array([1.0, 0, 0, 0])), [0, 0, -1])
    # pitched 90 degrees nose-down about y: world down is the body's +x
    half = np.pi / 4
    q = np.array([np.cos(half), 0, np.sin(half), 0])
    np.testing.assert_allclose(obs.gravity_in_frame(q), [1, 0, 0], atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_numpy_and_jax_build_the_same_frame(seed):
    c = contract(latency=True)
    rng = np.random.default_rng(seed)
    r = readings(rng)
    f_np = obs.frame(c, r, xp=np)
    f_jax = obs.frame(c, {k: jnp.asarray(v, jnp.float32) for k, v in r.items()}, xp=jnp)
    # float32 on the JAX side: agreement to float32 rounding of order-one values
    np.testing.assert_allclose(np.asarray(f_jax), f_np, rtol=1e-5, atol=1e-5)


def test_frame_layout_follows_contract():
    c = contract()
    r = readings(np.random.default_rng(0))
    f = obs.frame(c, r)
    assert f.shape == (c.frame_size,)
    np.testing.assert_allclose(f[c.block_slice("gyro")], 0.25 * r["gyro"])
    np.testing.assert_allclose(f[c.block_slice("joint_pos")], r["joint_pos"] - np.array(c.default_pose))
    np.testing.assert_allclose(f[c.block_slice("joint_vel")], 0.05 * r["joint_vel"])
    np.testing.assert_allclose(f[c.block_slice("gait_phase")],
                               [np.cos(r["gait_phase"]), np.sin(r["gait_phase"])])


def test_action_latency_block_only_when_asked_for_and_last():
    """Appended after every other block, so a contract without it keeps the layout that
    trained policies were built on."""
    without, with_latency = obs.make_blocks(2, gait_phase=True), obs.make_blocks(
        2, gait_phase=True, action_latency=True)
    assert "action_latency" not in [b.name for b in without]
    assert with_latency[:-1] == without
    assert (with_latency[-1].name, with_latency[-1].size) == ("action_latency", 1)
    c = contract(latency=True)
    r = readings(np.random.default_rng(1))
    f = obs.frame(c, r)
    assert f.shape == (contract().frame_size + 1,)
    assert f[-1] == pytest.approx(float(r["action_latency"]))


def test_history_is_newest_first():
    c = contract(history=3)
    h = obs.initial_history(c, np.zeros(c.frame_size))
    h = obs.push_history(h, np.ones(c.frame_size))
    h = obs.push_history(h, 2 * np.ones(c.frame_size))
    flat = obs.actor_observation(h)
    assert flat.shape == (3 * c.frame_size,)
    assert flat[0] == 2 and flat[c.frame_size] == 1 and flat[2 * c.frame_size] == 0


def test_unknown_block_fails():
    from mjxwalk.contract import ObsBlock
    c = make_contract(obs_blocks=(ObsBlock("lidar", 3, 1.0),))
    with pytest.raises(ContractError, match="unknown observation block 'lidar'"):
        obs.frame(c, readings(np.random.default_rng(0)))
