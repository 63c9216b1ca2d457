"""What the walk env's robot measures (the actor's frame) and what only its critic sees.

The actor's frame is built from the readings a real robot has, passed through this
episode's sensor errors and delays; the critic's privileged observation is the clean frame
plus quantities no robot measures (true velocity, contact forces, the episode's delays).
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import jax
import jax.numpy as jnp

from mjxwalk import geometry, obs, randomize, sim
from mjxwalk.compat import mjx
from mjxwalk.config import Noise
from mjxwalk.contract import PolicyContract
from mjxwalk.envs.walk_state import WalkInfo
from mjxwalk.scene import RobotIndex


# eq=False: compared and hashed by identity, as the env is (its fields hold arrays)
@dataclasses.dataclass(frozen=True, eq=False)
class Sensing:
    """The walk env's sensing for one robot and config; every method is pure."""

    index: RobotIndex
    """Where the robot's parts sit in the model."""
    contract: PolicyContract
    """The observation contract the actor's frame follows."""
    noise: Noise
    """Per-block frame noise amplitudes."""
    n_substeps: int
    """Physics steps per control period (a substep delay counts as this fraction)."""
    torso_height: float
    """Torso height when standing, m (the privileged height is relative to it)."""
    weight: float
    """The robot's weight, N (foot forces are relative to it)."""
    torso_mass: float
    """The model's torso mass, kg (the privileged payload is the change from it)."""
    torque_limit: jax.Array
    """Each joint's torque limit, N m (joint torques are relative to it)."""
    ground_height: Callable[[jax.Array], jax.Array]
    """Terrain height under a world xy point."""
    kick_recovery_window: float = 0.0
    """`WalkConfig.kick_recovery_window`: > 0 adds the share of it still left to the
    privileged observation, since the reward depends on it."""

    def imu(self, model: mjx.Model, data: mjx.Data) -> dict[str, jax.Array]:
        """The IMU's gyro, accelerometer and orientation (to gravity), before the episode's
        errors."""
        # the robot's IMU finds "down" from its accelerometer, so a tilted gravity (a
        # sloped floor) shows in its orientation; MuJoCo's framequat is world-relative
        imu = sim.imu(data, self.index)
        orientation = geometry.relative_to_gravity(imu["orientation"], model.opt.gravity, xp=jnp)
        return {**imu, "orientation": orientation}

    def true_imu(self, model: mjx.Model, data: mjx.Data) -> jax.Array:
        """Gyro (3) and orientation (4) as one vector, for the IMU delay buffer."""
        imu = self.imu(model, data)
        return jnp.concatenate([imu["gyro"], imu["orientation"]])

    def readings(self, model: mjx.Model, data: mjx.Data, last_action, command, phase,
                 action_latency, last_clock) -> dict[str, jax.Array]:
        """What a perfect robot would measure, in the names `mjxwalk.obs.frame` expects."""
        imu = self.imu(model, data)
        return {"gyro": imu["gyro"], "orientation": imu["orientation"],
                "joint_pos": data.qpos[self.index.qpos_adr],
                "joint_vel": data.qvel[self.index.dof_adr],
                "last_action": last_action, "command": command, "gait_phase": phase,
                "action_latency": action_latency,
                "gait_phase_shift": self.contract.gait_phase_offset_span * jnp.sum(last_clock)}

    def action_latency(self, params: randomize.EpisodeParams) -> jax.Array:
        """This episode's action delay in control periods, whole periods plus substeps."""
        return (params.action_delay + params.action_delay_substeps / self.n_substeps
                ).astype(jnp.float32)

    def measured_readings(self, model: mjx.Model, data: mjx.Data, info: WalkInfo, last_action,
                          command, phase):
        """What this episode's robot measures: delayed, misaligned, biased IMU; encoders off
        by their zero error; its loop's latency timed with an error (noise is added to the
        frame, per block)."""
        p = info.params
        imu = info.imu[p.imu_delay]
        gyro = geometry.rotate_inverse(p.imu_rotation, imu[:3], xp=jnp) + p.gyro_bias
        orientation = geometry.quat_mul(imu[3:], p.imu_rotation, xp=jnp)
        readings = self.readings(model, data, last_action, command, phase, self.action_latency(p),
                                 info.last_clock)
        return {**readings, "gyro": gyro, "orientation": orientation,
                "joint_pos": readings["joint_pos"] + p.servo.joint_offset,
                "action_latency": readings["action_latency"] + p.action_latency_error}

    def actor_frame(self, model, data, info: WalkInfo, last_action, command, phase, rng):
        """The actor's newest frame: measured readings, gravity bias and noise."""
        readings = self.measured_readings(model, data, info, last_action, command, phase)
        frame = obs.frame(self.contract, readings, xp=jnp)
        gravity = self.contract.block_slice("gravity")
        scale = {b.name: b.scale for b in self.contract.obs_blocks}["gravity"]
        frame = frame.at[gravity].add(info.params.gravity_bias * scale)
        return frame + randomize.frame_noise(rng, self.contract, self.noise)

    def clean_frame(self, model, data, last_action, command, phase, action_latency,
                    last_clock):
        """The noise-free frame of a perfect robot (the critic's view)."""
        readings = self.readings(model, data, last_action, command, phase, action_latency,
                                 last_clock)
        return obs.frame(self.contract, readings, xp=jnp)

    def privileged(self, model, data, info: WalkInfo, last_action, command, phase, contact,
                   force):
        """Critic-only: the clean frame plus what the robot cannot measure, laid out as
        `privileged_layout` names."""
        idx = self.index
        lin_vel, ang_vel = sim.local_velocity(data)
        torso = data.xpos[idx.torso_body]
        p = info.params
        return jnp.concatenate([
            self.clean_frame(model, data, last_action, command, phase, self.action_latency(p),
                             info.last_clock),
            lin_vel, ang_vel * 0.25,
            jnp.mean(info.yaw_rates, keepdims=True),
            (torso[2:3] - self.ground_height(torso[:2])) / self.torso_height,
            contact.astype(jnp.float32), force / self.weight, info.feet_air_time,
            model.geom_friction[idx.floor, :1],
            (model.body_mass[idx.torso_body:idx.torso_body + 1] - self.torso_mass),
            jnp.stack([self.action_latency(p), p.imu_delay.astype(jnp.float32)]),
            data.qfrc_actuator[idx.dof_adr] / self.torque_limit,
            info.last_clock,
            self.recovery_left(info.since_push),
        ])

    def recovery_left(self, since_push: jax.Array) -> jax.Array:
        """Share of the kick recovery window still left, (1,), or (0,) without a window."""
        if self.kick_recovery_window <= 0:
            return jnp.zeros(0)
        return jnp.clip(1.0 - since_push / self.kick_recovery_window, 0.0, 1.0)[None]


def privileged_layout(nu: int, frame_size: int, clock_size: int = 0,
                      recovery_size: int = 0) -> list[tuple[str, int]]:
    """Names and sizes of the privileged observation's parts, in order (for inspection).
    `clock_size` 1: the policy moves its gait clock, and the critic sees the clock value it
    set last. `recovery_size` 1: the critic sees the share of the kick recovery window left."""
    return [("frame", frame_size), ("lin_vel", 3), ("ang_vel", 3), ("mean_yaw_rate", 1),
            ("height", 1),
            ("feet_contact", 2), ("feet_force", 2), ("feet_air_time", 2), ("floor_friction", 1),
            ("payload", 1), ("delays", 2), ("joint_torque", nu), ("last_clock", clock_size),
            ("recovery_left", recovery_size)]
