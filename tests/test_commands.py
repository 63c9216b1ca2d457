import jax
import numpy as np
import pytest

from mjxwalk import commands
from mjxwalk.config import CommandConfig

N = 20_000  # binomial sd of a share near 0.5 is 0.0035: the 0.02 tolerances below are ~6 sd


def _draw(config: CommandConfig) -> np.ndarray:
    keys = jax.random.split(jax.random.PRNGKey(0), N)
    return np.asarray(jax.vmap(lambda k: commands.sample_command(k, config))(keys))


def test_commands_stay_in_their_ranges():
    config = CommandConfig(vx_range=(-0.3, 0.5), vy_range=(-0.2, 0.2), yaw_rate_range=(0.1, 1.0),
                           zero_probability=0.0, axis_zero_probability=0.0)
    x = _draw(config)
    assert np.all(x >= np.array(config.low)) and np.all(x <= np.array(config.high))
    # uniform: the mean of each component is the middle of its range
    np.testing.assert_allclose(x.mean(axis=0), [0.1, 0.0, 0.55], atol=0.01)


def test_standing_and_single_axis_zeros_come_at_their_rates():
    config = CommandConfig(zero_probability=0.2, axis_zero_probability=0.3)
    zero = _draw(config) == 0.0
    standing = zero.all(axis=1)
    # all three zero: 0.2 standing, plus 0.8 x 0.3^3 from three single-axis zeros
    assert standing.mean() == pytest.approx(0.2 + 0.8 * 0.3 ** 3, abs=0.02)
    # each component: zero when standing or on its own
    np.testing.assert_allclose(zero.mean(axis=0), 0.2 + 0.8 * 0.3, atol=0.02)
    # pure turns (only the yaw rate left) exist: 0.8 x 0.3 x 0.3 x 0.7
    pure_turn = zero[:, 0] & zero[:, 1] & ~zero[:, 2]
    assert pure_turn.mean() == pytest.approx(0.8 * 0.09 * 0.7, abs=0.01)


def test_no_zeros_when_both_probabilities_are_zero():
    zero = _draw(CommandConfig(zero_probability=0.0, axis_zero_probability=0.0)) == 0.0
    assert not zero.any()


def test_gait_clock_advances_and_wraps():
    phase = commands.advance_phase(jax.numpy.float32(6.2), frequency=1.5, dt=0.02)
    assert 0.0 <= float(phase) < 2 * np.pi
    np.testing.assert_allclose(float(phase), (6.2 + 2 * np.pi * 1.5 * 0.02) % (2 * np.pi),
                               atol=1e-5)  # float32 wrap
