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
