"""Quaternion helpers (w, x, y, z), generic over the array library."""

from __future__ import annotations

import numpy as np


def quat_mul(a, b, xp=np):
    """Hamilton product a * b."""
    aw, ax, ay, az = a[0], a[1], a[2], a[3]
    bw, bx, by, bz = b[0], b[1], b[2], b[3]
    return xp.stack([aw * bw - ax * bx - ay * by - az * bz,
                     aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw])


def axis_angle(axis, angle, xp=np):
    """Unit quaternion of a rotation by `angle` about unit vector `axis`."""
    half = 0.5 * angle
    return xp.concatenate([xp.reshape(xp.cos(half), (1,)), xp.sin(half) * axis])


def rotate_inverse(quat, v, xp=np):
    """v expressed in the frame whose orientation is `quat` (R^T v)."""
    w, x, y, z = quat[0], quat[1], quat[2], quat[3]
    rot = xp.stack([
        xp.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)]),
        xp.stack([2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)]),
        xp.stack([2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]),
    ])
    return rot.T @ v


def relative_to_gravity(quat, gravity, xp=np):
    """Orientation `quat` (world frame) re-expressed in the frame whose -z is `gravity`'s
    direction: what an IMU's orientation filter reports, since it finds "down" from the
    accelerometer, and so tilts with gravity (a sloped floor) where the world frame does not.

    The frame's rotation q_g takes (0, 0, -1) to the unit gravity by the shortest arc;
    the result is conj(q_g) * quat, so `gravity_in_frame` of it is gravity in the body frame.
    """
    down = gravity / xp.linalg.norm(gravity)
    # shortest arc from a = (0, 0, -1) to b = down: (1 + a.b, a x b), normalized
    q_g = xp.stack([1.0 - down[2], down[1], -down[0], 0.0 * down[2]])
    q_g = q_g / xp.linalg.norm(q_g)
    conj = q_g * xp.asarray([1.0, -1.0, -1.0, -1.0])
    return quat_mul(conj, quat, xp=xp)
