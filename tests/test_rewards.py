"""Every reward term against a value worked out by hand."""

import dataclasses
import math

import jax.numpy as jnp
import pytest

from mjxwalk import rewards
from mjxwalk.config import RewardScales

A = jnp.array


def close(x, expected):
    assert float(x) == pytest.approx(expected, rel=1e-5, abs=1e-7)


def test_every_scale_has_a_term_of_the_same_name():
    for field in dataclasses.fields(RewardScales):
        assert callable(getattr(rewards, field.name)), field.name


def test_tracking():
    # error² = (0.5-0.3)² + (0-0.1)² = 0.05; exp(-0.05/0.25)
    close(rewards.tracking_lin_vel(A([0.5, 0.0, 0.0]), A([0.3, 0.1, 9.0]), 0.25), math.exp(-0.2))
    # yaw error 1 - 0.5 = 0.5 -> exp(-0.25/0.25)
    close(rewards.tracking_ang_vel(A([0.0, 0.0, 1.0]), 0.5, 0.25), math.exp(-1.0))


def test_penalties():
    close(rewards.lin_vel_z(A([1.0, 2.0, 0.3])), 0.09)
    close(rewards.ang_vel_xy(A([0.1, -0.2, 5.0])), 0.05)
    close(rewards.orientation(A([0.1, 0.2, -0.97])), 0.05)
    close(rewards.torques(A([1.0, -2.0])), 5.0)
    close(rewards.action_rate(A([0.5, 0.0]), A([0.0, 0.25])), 0.3125)
    close(rewards.pose(A([0.1, -0.3])), 0.1)


def test_feet_air_time_paid_at_touch_down_only_when_moving():
    air, first = A([0.4, 0.1]), A([True, False])
    close(rewards.feet_air_time(air, first, A([0.3, 0.0, 0.0]), 0.25), 0.25)  # capped at 0.25
    close(rewards.feet_air_time(A([0.1, 0.4]), first, A([0.3, 0.0, 0.0]), 0.25), 0.1)
    close(rewards.feet_air_time(air, first, A([0.0, 0.0, 0.0]), 0.25), 0.0)


def test_feet_slip_counts_grounded_feet_only():
    vel = A([[0.3, 0.4, 9.0], [1.0, 1.0, 0.0]])
    close(rewards.feet_slip(A([1.0, 0.0]), vel), 0.25)  # 0.09 + 0.16, vz ignored


def test_stand_still_only_when_commanded_zero():
    offset = A([0.1, -0.2])
    close(rewards.stand_still(offset, A([0.0, 0.0, 0.0])), 0.3)
    close(rewards.stand_still(offset, A([0.2, 0.0, 0.0])), 0.0)


def test_termination_and_alive():
    close(rewards.termination(A(True)), 1.0)
    close(rewards.termination(A(False)), 0.0)
    close(rewards.alive(), 1.0)


def test_feet_phase_follows_the_clock():
    walk = A([0.3, 0.0, 0.0])
    # phase π/2: left foot at the top of its swing (target 0.03), right foot planted (0)
    close(rewards.feet_phase(A([0.03, 0.0]), math.pi / 2, walk, 0.03, 4e-4), 1.0)
    # the opposite feet lifted: error 0.03 on each foot -> exp(-0.0018 / 4e-4)
    close(rewards.feet_phase(A([0.0, 0.03]), math.pi / 2, walk, 0.03, 4e-4), math.exp(-4.5))
    # half a cycle later the right foot swings
    close(rewards.feet_phase(A([0.0, 0.03]), 3 * math.pi / 2, walk, 0.03, 4e-4), 1.0)
    # commanded to stand, both feet should stay down whatever the clock says
    close(rewards.feet_phase(A([0.0, 0.0]), math.pi / 2, A([0.0, 0.0, 0.0]), 0.03, 4e-4), 1.0)
    close(rewards.feet_phase(A([0.02, 0.0]), math.pi / 2, A([0.0, 0.0, 0.0]), 0.03, 4e-4),
          math.exp(-1.0))


def test_catch_step_pays_touch_downs_near_the_target_only_after_a_kick():
    feet = A([[0.1, 0.05], [0.0, -0.05]])
    target = A([[0.1, 0.05], [0.0, 0.05]])  # left foot on target, right foot 0.1 m off
    left_lands, both_land = A([True, False]), A([True, True])
    close(rewards.catch_step(feet, left_lands, target, 0.2, 0.7, 0.005), 1.0)
    close(rewards.catch_step(feet, both_land, target, 0.2, 0.7, 0.005), 1.0 + math.exp(-2.0))
    close(rewards.catch_step(feet, A([False, False]), target, 0.2, 0.7, 0.005), 0.0)
    # past the window after the kick nothing is paid, at its edge still
    close(rewards.catch_step(feet, left_lands, target, 0.71, 0.7, 0.005), 0.0)
    close(rewards.catch_step(feet, left_lands, target, 0.7, 0.7, 0.005), 1.0)
