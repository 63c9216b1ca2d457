"""Left-right mirror symmetry of a robot, as signed permutations of its vectors.

Reflecting the world through the robot's sagittal plane (y -> -y) maps a state, an
observation or an action of a symmetric robot to another valid one: a left step becomes a
right step. Every such map here is a signed permutation, `mirrored = x[..., index] * sign`,
so it costs a gather and a multiply and is its own inverse.

Host side (numpy + mujoco). The joint map is derived from the compiled model, not declared:
each joint's partner is found by its name (left <-> right) and the sign by comparing the
partner's axis with the mirror image of the joint's axis at the zero pose. A robot that is
not mirror-symmetric fails here with the joint named, never silently later.

Under the reflection a polar vector (velocity, gravity) keeps x and z and negates y; an
axial vector (angular velocity, a hinge axis) negates x and z and keeps y.
"""

from __future__ import annotations

import dataclasses
import re

import mujoco
import numpy as np

from mjxwalk.errors import SpecError

POLAR = (1.0, -1.0, 1.0)
"""Signs of a mirrored polar vector (position, linear velocity, gravity direction)."""
AXIAL = (-1.0, 1.0, -1.0)
"""Signs of a mirrored axial vector (angular velocity, rotation axis)."""

_SIDES = [(re.compile(p), r) for p, r in (
    (r"left", "right"), (r"right", "left"), (r"Left", "Right"), (r"Right", "Left"),
    (r"LEFT", "RIGHT"), (r"RIGHT", "LEFT"), (r"^l_", "r_"), (r"^r_", "l_"),
    (r"_l_", "_r_"), (r"_r_", "_l_"), (r"_l$", "_r"), (r"_r$", "_l"),
    (r"^L_", "R_"), (r"^R_", "L_"), (r"_L$", "_R"), (r"_R$", "_L"))]


@dataclasses.dataclass(frozen=True)
class SignedPermutation:
    """`apply(x) = x[..., index] * sign`: one mirror map over the last axis."""

    index: np.ndarray
    """Source position of each output value."""
    sign: np.ndarray
    """+1 or -1 per output value."""

    def __post_init__(self):
        if self.index.shape != self.sign.shape or self.index.ndim != 1:
            raise ValueError("index and sign must be 1-D arrays of the same length")
        if sorted(self.index.tolist()) != list(range(len(self.index))):
            raise ValueError("index must be a permutation of 0..n-1")

    @property
    def size(self) -> int:
        return len(self.index)

    def apply(self, x):
        """Mirror `x` (numpy or jax array, mirrored along its last axis)."""
        return x[..., self.index] * self.sign.astype(x.dtype)

    def is_involution(self) -> bool:
        """Mirroring twice is the identity (every true mirror map is)."""
        twice = self.sign * self.sign[self.index]
        return bool(np.all(self.index[self.index] == np.arange(self.size)) and np.all(twice == 1))


def identity(size: int) -> SignedPermutation:
    """A block that the mirror leaves alone (heights, masses, delays)."""
    return SignedPermutation(np.arange(size), np.ones(size))


def signs(values) -> SignedPermutation:
    """A block whose entries keep their place and may flip sign (a vector, a command)."""
    values = np.asarray(values, dtype=np.float64)
    return SignedPermutation(np.arange(len(values)), values)


def swap_pair() -> SignedPermutation:
    """Two values, left then right, that trade places (per-foot contacts, forces)."""
    return SignedPermutation(np.array([1, 0]), np.ones(2))


def concat(parts: list[SignedPermutation]) -> SignedPermutation:
    """Block maps side by side, in order, as one map over the concatenated vector."""
    index, sign, offset = [], [], 0
    for part in parts:
        index.append(part.index + offset)
        sign.append(part.sign)
        offset += part.size
    return SignedPermutation(np.concatenate(index).astype(np.int64), np.concatenate(sign))


def tile(part: SignedPermutation, times: int) -> SignedPermutation:
    """The same map on each of `times` consecutive frames (an observation history)."""
    return concat([part] * times)


def other_side(name: str) -> str:
    """The name of the mirror partner of `name` (left <-> right), or `name` itself."""
    for pattern, replacement in _SIDES:
        if pattern.search(name):
            return pattern.sub(replacement, name)
    return name


def joint_mirror(model: mujoco.MjModel, joint_names: tuple[str, ...], path=None,
                 tolerance: float = 1e-3) -> SignedPermutation:
    """Mirror map of the actuated joints (policy order) of a left-right symmetric robot.

    `model` is the compiled robot; the comparison is made at the zero pose with the root at
    the origin, unrotated. Raises `SpecError` (naming `path`) when a joint has no partner in
    the list, or when a partner's anchor, axis or range is not the mirror image of the
    joint's (the default pose is `check_default_pose`'s).
    """
    data = mujoco.MjData(model)
    data.qpos[:] = model.qpos0
    data.qpos[0:7] = (0, 0, 0, 1, 0, 0, 0)
    mujoco.mj_kinematics(model, data)
    ids = [mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_JOINT, n) for n in joint_names]
    position = {n: i for i, n in enumerate(joint_names)}
    reflect = np.asarray(POLAR)
    index, sign = np.zeros(len(ids), np.int64), np.zeros(len(ids))
    for k, (name, jid) in enumerate(zip(joint_names, ids)):
        partner = other_side(name)
        if partner not in position:
            raise SpecError(path, f"symmetry: joint {name!r} has no mirror partner "
                            f"{partner!r} among the actuated joints")
        pid = ids[position[partner]]
        anchor_error = np.linalg.norm(data.xanchor[pid] - reflect * data.xanchor[jid])
        if anchor_error > tolerance:
            raise SpecError(path, f"symmetry: joint {partner!r} is not at the mirror image of "
                            f"{name!r}'s position ({anchor_error * 1000:.1f} mm off)")
        hinge = model.jnt_type[jid] == mujoco.mjtJoint.mjJNT_HINGE
        mirrored_axis = (np.asarray(AXIAL) if hinge else reflect) * data.xaxis[jid]
        alignment = float(np.dot(data.xaxis[pid], mirrored_axis))
        if abs(abs(alignment) - 1.0) > tolerance:
            raise SpecError(path, f"symmetry: the axis of joint {partner!r} is not the mirror "
                            f"image of {name!r}'s (alignment {alignment:+.3f}, needs +-1)")
        s = 1.0 if alignment > 0 else -1.0
        mirrored_range = np.sort(s * model.jnt_range[jid])
        if np.max(np.abs(model.jnt_range[pid] - mirrored_range)) > tolerance:
            raise SpecError(path, f"symmetry: joint {partner!r} has range "
                            f"{tuple(model.jnt_range[pid])}, the mirror of {name!r} needs "
                            f"{tuple(mirrored_range)}")
        index[position[partner]], sign[position[partner]] = k, s
    return SignedPermutation(index, sign)


def check_default_pose(mirror: SignedPermutation, default_pose: np.ndarray,
                       joint_names: tuple[str, ...], path=None, tolerance: float = 1e-3) -> None:
    """Raise `SpecError` when the default pose is not its own mirror image."""
    error = np.abs(mirror.apply(np.asarray(default_pose)) - default_pose)
    worst = int(np.argmax(error))
    if error[worst] > tolerance:
        raise SpecError(path, f"symmetry: the default pose is not left-right symmetric at "
                        f"joint {joint_names[worst]!r} ({error[worst]:.3f} rad off)")


def frame_mirror(contract, joints: SignedPermutation) -> SignedPermutation:
    """Mirror map of one actor observation frame laid out by `contract.obs_blocks`.

    The gait clock moves half a cycle (cos and sin change sign): the left foot's part of
    the cycle becomes the right foot's.
    """
    blocks = {"gyro": signs(AXIAL), "gravity": signs(POLAR), "joint_pos": joints,
              "joint_vel": joints, "last_action": joints,
              "command": signs((1.0, -1.0, -1.0)),  # vx, vy, yaw_rate
              "gait_phase": signs((-1.0, -1.0)), "action_latency": identity(1),
              "gait_phase_shift": identity(1)}  # a shift is the same on either half-cycle
    parts = []
    for block in contract.obs_blocks:
        if block.name not in blocks:
            raise ValueError(f"symmetry: no mirror map for observation block {block.name!r}")
        part = blocks[block.name]
        if part.size != block.size:
            raise ValueError(f"symmetry: block {block.name!r} has {block.size} values, its "
                             f"mirror map {part.size}")
        parts.append(part)
    return concat(parts)
