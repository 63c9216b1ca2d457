"""The servo model: datasheet torque-speed line, velocity limit, backlash."""

import jax.numpy as jnp
import numpy as np
import pytest

from mjxwalk import servo

STALL, NO_LOAD = 4.1, 4.82  # XM430-W350 at 12 V


def test_stall_torque_at_rest_zero_at_no_load_speed():
    lo, hi = servo.torque_bounds(jnp.array(0.0), STALL, NO_LOAD, True, True)
    assert float(hi) == pytest.approx(STALL) and float(lo) == pytest.approx(-STALL)
    lo, hi = servo.torque_bounds(jnp.array(NO_LOAD), STALL, NO_LOAD, True, True)
    assert float(hi) == 0.0  # cannot drive faster
    assert float(lo) == pytest.approx(-STALL)  # can still brake fully
    lo, hi = servo.torque_bounds(jnp.array(-NO_LOAD), STALL, NO_LOAD, True, True)
    assert float(lo) == 0.0 and float(hi) == pytest.approx(STALL)


def test_line_is_linear_in_between():
    lo, hi = servo.torque_bounds(jnp.array(0.25 * NO_LOAD), STALL, NO_LOAD, True, False)
    assert float(hi) == pytest.approx(0.75 * STALL, rel=1e-6)


def test_velocity_limit_alone_cuts_drive_past_no_load():
    lo, hi = servo.torque_bounds(jnp.array([0.5 * NO_LOAD, 1.1 * NO_LOAD]), STALL, NO_LOAD,
                                 False, True)
    np.testing.assert_allclose(hi, [STALL, 0.0])
    np.testing.assert_allclose(lo, [-STALL, -STALL])


def test_ideal_servo_is_a_clipped_pd():
    tau = servo.servo_torque(jnp.array([0.1, 1.0]), jnp.zeros(2), jnp.array([0.5, 0.0]), 21.0, 0.5,
                             STALL, NO_LOAD, 0.0, False, False)
    np.testing.assert_allclose(tau, [21 * 0.1 - 0.5 * 0.5, STALL], rtol=1e-6)


def test_backlash_is_a_dead_band():
    err = servo.backlash_error(jnp.array([0.005, -0.005, 0.02, -0.02]), 0.02)
    np.testing.assert_allclose(err, [0.0, 0.0, 0.01, -0.01], atol=1e-9)
