"""The policy contract: everything a policy's inputs and outputs mean, in one place.

The env builds observations from it, the exporter writes it into the ONNX file and the
onboard runner reads it back, so all three agree on order, scale, units and history by
construction. Standard library and numpy only: the robot imports this without JAX.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from typing import Any

from mjxwalk.errors import ContractError

FORMAT_VERSION = 1
"""Bumped whenever the meaning of a field changes."""


@dataclasses.dataclass(frozen=True)
class ObsBlock:
    """One named slice of an observation frame."""

    name: str
    """What the block holds (see `mjxwalk.obs.BLOCKS`)."""
    size: int
    """Number of values."""
    scale: float
    """Multiplier applied to the reading before the policy sees it."""


@dataclasses.dataclass(frozen=True)
class PolicyContract:
    """What the policy reads and writes, and how the robot must be driven to match."""

    robot: str
    """Robot name."""
    joint_names: tuple[str, ...]
    """Actuated joints, in the order of the action vector and of joint observations."""
    servo_ids: tuple[int, ...]
    """Servo bus id of each joint."""
    default_pose: tuple[float, ...]
    """Standing joint angles, rad; actions are offsets from these."""
    action_scale: tuple[float, ...]
    """rad of target offset per unit of action, per joint."""
    joint_lower: tuple[float, ...]
    """Lower joint limits, rad; targets are clipped to them."""
    joint_upper: tuple[float, ...]
    """Upper joint limits, rad."""
    kp: tuple[float, ...]
    """Servo position gain per joint, N·m/rad."""
    kd: tuple[float, ...]
    """Servo derivative gain per joint, N·m·s/rad."""
    torque_limit: tuple[float, ...]
    """Servo torque limit per joint, N·m."""
    velocity_limit: tuple[float, ...]
    """Servo no-load speed per joint, rad/s."""
    control_period: float
    """Seconds between actions."""
    obs_blocks: tuple[ObsBlock, ...]
    """Layout of one observation frame, in order."""
    history_length: int
    """Frames in the actor observation, newest first."""
    command_names: tuple[str, ...]
    """Meaning of each command value."""
    command_low: tuple[float, ...]
    """Lowest command trained on, per command value."""
    command_high: tuple[float, ...]
    """Highest command trained on, per command value."""
    gait_frequency: float
    """Gait clock frequency, Hz (0: no gait phase block)."""
    gait_frequency_span: float = 0.0
    """> 0: the action has one more value after the joints', a in [-1, 1], and the runner
    advances its gait clock by 2π (gait_frequency + gait_frequency_span x a) x
    control_period each step. 0: the action is the joints' only and the clock is fixed."""
    gait_phase_offset_span: float = 0.0
    """> 0: the action has one more value after the joints', a in [-1, 1]; the runner's
    clock runs at gait_frequency, and the gait phase it puts in the next observation is that
    clock's angle + gait_phase_offset_span x a, rad, with a the last action's value, and the
    frame's gait_phase_shift block holds that shift. 0: no such value. At most one of the
    two clock spans is > 0."""
    imu_frame: str = "gyro (rad/s) and gravity (unit vector) in the IMU frame: x forward, y left, z up"
    """Convention the IMU readings must follow."""
    format_version: int = FORMAT_VERSION
    """Contract format version."""

    def __post_init__(self):
        nu = len(self.joint_names)
        for field in ("servo_ids", "default_pose", "action_scale", "joint_lower", "joint_upper",
                      "kp", "kd", "torque_limit", "velocity_limit"):
            if len(getattr(self, field)) != nu:
                raise ContractError(f"{field} has {len(getattr(self, field))} values for {nu} joints")
        if not len(self.command_low) == len(self.command_high) == len(self.command_names):
            raise ContractError("command_names, command_low and command_high differ in length")
        if self.history_length < 1:
            raise ContractError(f"history_length must be >= 1, got {self.history_length}")
        if not 0 <= self.gait_frequency_span < max(self.gait_frequency, 1e-9):
            raise ContractError(f"gait_frequency_span {self.gait_frequency_span} must be >= 0 "
                                f"and below gait_frequency {self.gait_frequency}")
        if not 0 <= self.gait_phase_offset_span <= math.pi:
            raise ContractError(f"gait_phase_offset_span {self.gait_phase_offset_span} must be "
                                "in [0, pi] rad")
        if self.gait_frequency_span and self.gait_phase_offset_span:
            raise ContractError("gait_frequency_span and gait_phase_offset_span are both set: "
                                "a policy has one clock action")
        shift_block = any(b.name == "gait_phase_shift" for b in self.obs_blocks)
        if self.gait_phase_offset_span and not (self.gait_frequency and shift_block):
            raise ContractError("gait_phase_offset_span needs a gait clock (gait_frequency > 0) "
                                "and the gait_phase_shift observation block")
        if shift_block and not self.gait_phase_offset_span:
            raise ContractError("the gait_phase_shift observation block needs "
                                "gait_phase_offset_span > 0")

    @property
    def nu(self) -> int:
        return len(self.joint_names)

    @property
    def clock_size(self) -> int:
        """Action values after the joints': 1 when the policy moves its gait clock (its
        rate or its phase), else 0."""
        return 1 if self.gait_frequency_span > 0 or self.gait_phase_offset_span > 0 else 0

    @property
    def action_size(self) -> int:
        """Values the policy outputs: one per joint, and the clock action if it has one."""
        return self.nu + self.clock_size

    @property
    def frame_size(self) -> int:
        return sum(b.size for b in self.obs_blocks)

    @property
    def observation_size(self) -> int:
        return self.frame_size * self.history_length

    def block_slice(self, name: str) -> slice:
        """Where block `name` sits in one frame."""
        start = 0
        for block in self.obs_blocks:
            if block.name == name:
                return slice(start, start + block.size)
            start += block.size
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["obs_blocks"] = [dataclasses.asdict(b) for b in self.obs_blocks]
        d = {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}
        d["hash"] = self.hash
        return d

    @property
    def hash(self) -> str:
        """sha256 of the canonical JSON of every field: equal hashes, equal contracts."""
        d = dataclasses.asdict(self)
        d["obs_blocks"] = [dataclasses.asdict(b) for b in self.obs_blocks]
        for field in ("gait_frequency_span", "gait_phase_offset_span"):
            if not d[field]:
                # contracts written before the field existed keep their hash
                del d[field]
        canonical = json.dumps(d, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(canonical.encode()).hexdigest()

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> PolicyContract:
        if not isinstance(d, dict):
            raise ContractError(f"a contract must be a JSON object, got {type(d).__name__}")
        d = dict(d)
        stored_hash = d.pop("hash", None)
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - names)
        if unknown:
            raise ContractError(f"unknown contract fields {unknown}")
        required = {f.name for f in dataclasses.fields(cls)
                    if f.default is dataclasses.MISSING}
        missing = sorted(required - set(d))
        if missing:
            raise ContractError(f"contract is missing fields {missing}")
        if d.get("format_version", FORMAT_VERSION) != FORMAT_VERSION:
            raise ContractError(f"contract format {d['format_version']} is not supported "
                                f"(this mjxwalk reads format {FORMAT_VERSION})")
        try:
            d["obs_blocks"] = tuple(ObsBlock(str(b["name"]), int(b["size"]), float(b["scale"]))
                                    for b in d["obs_blocks"])
        except (KeyError, TypeError, ValueError) as e:
            raise ContractError(f"malformed obs_blocks: {e}") from None
        d = {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}
        contract = cls(**d)
        if stored_hash is not None and stored_hash != contract.hash:
            raise ContractError("contract hash mismatch: the contract was edited after it was "
                                f"written (stored {stored_hash[:12]}, computed {contract.hash[:12]})")
        return contract

    @classmethod
    def from_json(cls, text: str) -> PolicyContract:
        try:
            d = json.loads(text)
        except json.JSONDecodeError as e:
            raise ContractError(f"contract is not valid JSON: {e}") from None
        return cls.from_dict(d)
