"""Quaternion helpers: orientation relative to a tilted gravity."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from mjxwalk import geometry, obs

unit = st.tuples(*[st.floats(-1.0, 1.0)] * 4).map(np.array).filter(
    lambda q: np.linalg.norm(q) > 0.1).map(lambda q: q / np.linalg.norm(q))
tilt = st.floats(0.0, 1.5)
heading = st.floats(-np.pi, np.pi)


def tilted(angle, direction, magnitude=9.81):
    return magnitude * np.array([np.sin(angle) * np.cos(direction),
                                 np.sin(angle) * np.sin(direction), -np.cos(angle)])


@settings(max_examples=200, deadline=None)
@given(unit, tilt, heading)
def test_gravity_reading_of_the_relative_orientation_is_true_gravity(quat, angle, direction):
    g = tilted(angle, direction)
    relative = geometry.relative_to_gravity(quat, g)
    assert abs(np.linalg.norm(relative) - 1.0) < 1e-9
    np.testing.assert_allclose(obs.gravity_in_frame(relative),
                               geometry.rotate_inverse(quat, g / np.linalg.norm(g)), atol=1e-9)


@settings(max_examples=50, deadline=None)
@given(unit)
def test_untilted_gravity_leaves_the_orientation_alone(quat):
    np.testing.assert_allclose(geometry.relative_to_gravity(quat, np.array([0.0, 0.0, -9.81])),
                               quat, atol=1e-12)


def test_tilt_shows_as_that_angle_off_vertical():
    # an upright body under gravity tilted by 0.05 rad reads 0.05 rad of lean
    reading = obs.gravity_in_frame(geometry.relative_to_gravity(np.array([1.0, 0, 0, 0]),
                                                                tilted(0.05, 0.7)))
    np.testing.assert_allclose(np.arccos(-reading[2]), 0.05, atol=1e-12)
