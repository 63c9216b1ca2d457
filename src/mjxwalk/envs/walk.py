"""Walk: follow a velocity command (forward, sideways, turn) on flat or rough ground.

A short composition of the pieces: scene (model), sim (physics), obs (contract-defined
observations), commands, rewards. Brax-compatible: `reset(rng)` and `step(state, action)`
are pure and jit/vmap cleanly; `reset_with` / `step_with` take the physics model as an
argument so domain randomization is a vmap over a batched `mjx.Model`.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import mujoco
from brax.envs import base as brax_base
from flax import struct

from mjxwalk import commands, obs, rewards, scene, sim
from mjxwalk import terrain as terrain_lib
from mjxwalk.compat import mjx
from mjxwalk.config import RewardScales, WalkConfig
from mjxwalk.contract import PolicyContract
from mjxwalk.errors import SpecError
from mjxwalk.robot import RobotSpec


@struct.dataclass
class State(brax_base.State):
    """brax's State; `data` names the mjx.Data that brax calls `pipeline_state`."""

    @property
    def data(self) -> mjx.Data:
        return self.pipeline_state


@struct.dataclass
class WalkInfo:
    """Per-episode variables, kept in `state.info['walk']`."""

    rng: jax.Array
    """Random key for in-episode sampling (commands)."""
    step: jax.Array
    """Control steps since reset."""
    command: jax.Array
    """Current velocity command (vx, vy, yaw_rate)."""
    last_action: jax.Array
    """Action of the previous step."""
    history: jax.Array
    """Observation frames, newest first, (history_length, frame_size)."""
    phase: jax.Array
    """Gait clock angle, rad."""
    feet_air_time: jax.Array
    """Seconds each foot has been off the ground."""
    last_contact: jax.Array
    """Whether each foot touched the ground at the previous step."""
    feet_pos: jax.Array
    """Foot body positions at the previous step, (n_feet, 3), for slip speed."""


def put_model(mj_model: mujoco.MjModel, robot: RobotSpec) -> mjx.Model:
    """mjx.put_model, with MJX's unsupported-feature errors naming the robot's files."""
    try:
        return mjx.put_model(mj_model)
    except NotImplementedError as e:
        raise SpecError(robot.mjcf_path, f"MJX cannot simulate a feature of this model: {e}. "
                        "Change that feature in the MJCF (see the MJX feature list in MuJoCo's "
                        "docs)") from None


class WalkEnv(brax_base.Env):
    """Velocity-command walking for any robot described by a `RobotSpec`."""

    def __init__(self, robot: RobotSpec, config: WalkConfig = WalkConfig()):
        self.robot = robot
        self.config = config
        mj_model = scene.build_model(robot, config.terrain, floor_contacts=config.floor_contacts,
                                     terrain_seed=config.terrain_seed)
        if config.solver_iterations is not None:
            mj_model.opt.iterations = config.solver_iterations
        if config.ls_iterations is not None:
            mj_model.opt.ls_iterations = config.ls_iterations
        self.mj_model = mj_model
        self.index = scene.robot_index(robot, mj_model)
        self.mjx_model = put_model(mj_model, robot)
        self.n_substeps = robot.n_substeps
        self.contract = PolicyContract(
            robot=robot.name,
            joint_names=robot.joint_names,
            servo_ids=robot.servo_ids,
            default_pose=tuple(robot.array("default")),
            action_scale=tuple(robot.array("action_scale")),
            joint_lower=tuple(robot.array("range")[:, 0]),
            joint_upper=tuple(robot.array("range")[:, 1]),
            kp=tuple(robot.array("kp")),
            kd=tuple(robot.array("kd")),
            torque_limit=tuple(robot.array("torque_limit")),
            velocity_limit=tuple(robot.array("velocity_limit")),
            control_period=robot.control_period,
            obs_blocks=obs.make_blocks(robot.nu, config.gait_phase, dict(config.obs_scales)),
            history_length=config.history_length,
            command_names=obs.COMMAND_NAMES,
            command_low=config.commands.low,
            command_high=config.commands.high,
            gait_frequency=config.gait_frequency if config.gait_phase else 0.0,
        )
        self._init_constants(mj_model)

    def _init_constants(self, mj_model: mujoco.MjModel) -> None:
        robot, idx = self.robot, self.index
        qpos0 = mj_model.qpos0.copy()
        qpos0[:7] = robot.default_base_qpos
        qpos0[idx.qpos_adr] = robot.array("default")
        data = mujoco.MjData(mj_model)
        data.qpos[:] = qpos0
        mujoco.mj_kinematics(mj_model, data)
        self._torso_height = float(data.xpos[idx.torso_body, 2])
        self._default_qpos = jnp.asarray(qpos0, jnp.float32)
        self._default_pose = jnp.asarray(robot.array("default"), jnp.float32)
        self._action_scale = jnp.asarray(robot.array("action_scale"), jnp.float32)
        self._lower = jnp.asarray(robot.array("range")[:, 0], jnp.float32)
        self._upper = jnp.asarray(robot.array("range")[:, 1], jnp.float32)
        self._kp = jnp.asarray(robot.array("kp"), jnp.float32)
        self._kd = jnp.asarray(robot.array("kd"), jnp.float32)
        self._torque_limit = jnp.asarray(robot.array("torque_limit"), jnp.float32)
        self._data_template = mjx.make_data(self.mjx_model)
        if idx.hfield >= 0:
            h = idx.hfield
            n = mj_model.hfield_nrow[h] * mj_model.hfield_ncol[h]
            adr = mj_model.hfield_adr[h]
            self._heights = jnp.asarray(mj_model.hfield_data[adr:adr + n].reshape(
                mj_model.hfield_nrow[h], mj_model.hfield_ncol[h]), jnp.float32)
            self._hfield_size = tuple(float(x) for x in mj_model.hfield_size[h])
        else:
            self._heights = None
        self._resample_steps = max(1, round(self.config.commands.resample_period / self.dt))

    # ------------------------------------------------------------------ brax interface

    @property
    def dt(self) -> float:
        return self.robot.control_period

    @property
    def action_size(self) -> int:
        return self.robot.nu

    @property
    def observation_size(self) -> dict[str, tuple[int, ...]]:
        return {"state": (self.contract.observation_size,),
                "privileged_state": (self.privileged_size,)}

    @property
    def privileged_size(self) -> int:
        return sum(size for _, size in privileged_layout(self.robot.nu, self.contract.frame_size))

    @property
    def backend(self) -> str:
        return "mjx"

    @property
    def unwrapped(self) -> WalkEnv:
        return self

    def reset(self, rng: jax.Array) -> State:
        return self.reset_with(self.mjx_model, rng)

    def step(self, state: State, action: jax.Array) -> State:
        return self.step_with(self.mjx_model, state, action)

    # ------------------------------------------------------------------ pure functions

    def ground_height(self, xy: jax.Array) -> jax.Array:
        """Terrain height under the world point `xy`."""
        if self._heights is None:
            return jnp.zeros(())
        return terrain_lib.height_at(self._heights, self._hfield_size, xy[0], xy[1], xp=jnp)

    def reset_with(self, model: mjx.Model, rng: jax.Array) -> State:
        cfg, idx = self.config, self.index
        rng, k_joint, k_vel, k_yaw, k_xy, k_cmd, k_phase = jax.random.split(rng, 7)
        qpos = self._default_qpos
        joint = self._default_pose + jax.random.uniform(
            k_joint, (self.robot.nu,), minval=-cfg.initial_joint_noise, maxval=cfg.initial_joint_noise)
        qpos = qpos.at[idx.qpos_adr].set(jnp.clip(joint, self._lower, self._upper))
        yaw = jax.random.uniform(k_yaw, minval=-jnp.pi, maxval=jnp.pi)
        yaw_quat = jnp.array([jnp.cos(yaw / 2), 0.0, 0.0, jnp.sin(yaw / 2)])
        qpos = qpos.at[3:7].set(_quat_mul(yaw_quat, qpos[3:7]))
        xy = jax.random.uniform(k_xy, (2,), minval=-cfg.spawn_xy_range, maxval=cfg.spawn_xy_range)
        qpos = qpos.at[0:2].set(xy).at[2].add(self.ground_height(xy))
        qvel = jnp.zeros(model.nv).at[0:6].set(jax.random.uniform(
            k_vel, (6,), minval=-cfg.initial_velocity_noise, maxval=cfg.initial_velocity_noise))
        data = self._data_template.replace(qpos=qpos, qvel=qvel)
        data = data.replace(ctrl=sim.servo_ctrl(model, data, idx, joint, self.robot.actuator_kind,
                                                self._kp, self._kd))
        data = mjx.forward(model, data)

        command = commands.sample_command(k_cmd, cfg.commands.low, cfg.commands.high,
                                          cfg.commands.zero_probability)
        phase = jax.random.uniform(k_phase, minval=0.0, maxval=2 * jnp.pi)
        action = jnp.zeros(self.robot.nu)
        first = self._frame(data, action, command, phase)
        contact, _ = sim.feet_contact(model, data, idx)
        info = WalkInfo(
            rng=rng, step=jnp.zeros((), jnp.int32), command=command, last_action=action,
            history=obs.initial_history(self.contract, first, xp=jnp), phase=phase,
            feet_air_time=jnp.zeros(len(idx.feet)), last_contact=contact,
            feet_pos=data.xpos[idx.feet])
        zero = jnp.zeros(())
        metrics = {f"reward/{name}": zero for name in _TERMS}
        metrics.update(nan_resets=zero, falls=zero, lin_vel_error=zero, yaw_rate_error=zero)
        observation = {"state": obs.actor_observation(info.history, xp=jnp),
                       "privileged_state": self._privileged(model, data, info, first)}
        return State(pipeline_state=data, obs=observation, reward=zero, done=zero,
                     metrics=metrics, info={"walk": info})

    def step_with(self, model: mjx.Model, state: State, action: jax.Array) -> State:
        cfg, idx = self.config, self.index
        info: WalkInfo = state.info["walk"]
        action = jnp.clip(action, -1.0, 1.0)
        target = jnp.clip(self._default_pose + action * self._action_scale, self._lower, self._upper)
        data = sim.step_physics(model, state.data, idx, target, self.n_substeps,
                                self.robot.actuator_kind, self._kp, self._kd)
        # a blown-up env keeps its last good state, is marked done (auto-reset) and counted
        finite = sim.is_finite(data)
        data = jax.tree.map(lambda new, old: jnp.where(finite, new, old), data, state.data)

        rng, k_cmd = jax.random.split(info.rng)
        step = info.step + 1
        resample = (step % self._resample_steps) == 0
        new_command = commands.sample_command(k_cmd, cfg.commands.low, cfg.commands.high,
                                              cfg.commands.zero_probability)
        command = jnp.where(resample, new_command, info.command)
        phase = commands.advance_phase(info.phase, cfg.gait_frequency, self.dt)

        contact, _ = sim.feet_contact(model, data, idx)
        feet_pos = data.xpos[idx.feet]
        feet_velocity = (feet_pos - info.feet_pos) / self.dt
        air_time = info.feet_air_time + self.dt
        first_contact = contact & ~info.last_contact

        lin_vel, ang_vel = sim.local_velocity(data)
        torso_rot = data.xmat[idx.torso_body]
        gravity = -torso_rot[2]  # world -z seen in the torso frame
        height = data.xpos[idx.torso_body, 2] - self.ground_height(data.xpos[idx.torso_body, :2])
        fell = (height < cfg.fall_height_fraction * self._torso_height) | \
            (torso_rot[2, 2] < jnp.cos(cfg.fall_tilt))
        joint_offset = data.qpos[idx.qpos_adr] - self._default_pose
        terms = {
            "tracking_lin_vel": rewards.tracking_lin_vel(command, lin_vel, cfg.tracking_sigma),
            "tracking_ang_vel": rewards.tracking_ang_vel(command, ang_vel, cfg.tracking_sigma),
            "lin_vel_z": rewards.lin_vel_z(lin_vel),
            "ang_vel_xy": rewards.ang_vel_xy(ang_vel),
            "orientation": rewards.orientation(gravity),
            "torques": rewards.torques(data.qfrc_actuator[idx.dof_adr]),
            "action_rate": rewards.action_rate(action, info.last_action),
            "feet_air_time": rewards.feet_air_time(air_time, first_contact, command,
                                                   cfg.feet_air_time_target),
            "feet_slip": rewards.feet_slip(contact, feet_velocity),
            "pose": rewards.pose(joint_offset),
            "stand_still": rewards.stand_still(joint_offset, command),
            "termination": rewards.termination(fell),
            "alive": rewards.alive(),
        }
        scaled = {name: value * getattr(cfg.rewards, name) for name, value in terms.items()}
        reward = jnp.where(finite, sum(scaled.values()), 0.0)

        frame = self._frame(data, action, command, phase)
        info = WalkInfo(
            rng=rng, step=step, command=command, last_action=action,
            history=obs.push_history(info.history, frame, xp=jnp), phase=phase,
            feet_air_time=jnp.where(contact, 0.0, air_time), last_contact=contact,
            feet_pos=feet_pos)
        done = (fell | ~finite).astype(jnp.float32)
        metrics = {f"reward/{name}": value for name, value in scaled.items()}
        metrics.update(
            nan_resets=(~finite).astype(jnp.float32), falls=fell.astype(jnp.float32),
            lin_vel_error=jnp.linalg.norm(command[:2] - lin_vel[:2]),
            yaw_rate_error=jnp.abs(command[2] - ang_vel[2]))
        observation = {"state": obs.actor_observation(info.history, xp=jnp),
                       "privileged_state": self._privileged(model, data, info, frame)}
        observation = jax.tree.map(lambda x: jnp.nan_to_num(x, posinf=0.0, neginf=0.0), observation)
        return state.replace(pipeline_state=data, obs=observation, reward=reward, done=done,
                             metrics=metrics, info={**state.info, "walk": info})

    # ------------------------------------------------------------------ observation parts

    def readings(self, data: mjx.Data, last_action, command, phase) -> dict[str, jax.Array]:
        """What the real robot measures, in the names `mjxwalk.obs.frame` expects."""
        imu = sim.imu(data, self.index)
        return {"gyro": imu["gyro"], "orientation": imu["orientation"],
                "joint_pos": data.qpos[self.index.qpos_adr],
                "joint_vel": data.qvel[self.index.dof_adr],
                "last_action": last_action, "command": command, "gait_phase": phase}

    def _frame(self, data, last_action, command, phase):
        return obs.frame(self.contract, self.readings(data, last_action, command, phase), xp=jnp)

    def _privileged(self, model, data, info: WalkInfo, frame):
        """Critic-only: the clean frame plus what the robot cannot measure."""
        idx = self.index
        lin_vel, ang_vel = sim.local_velocity(data)
        contact, force = sim.feet_contact(model, data, idx)
        weight = float(self.mj_model.body_subtreemass[1] * 9.81)
        torso = data.xpos[idx.torso_body]
        return jnp.concatenate([
            frame, lin_vel, ang_vel * 0.25,
            (torso[2:3] - self.ground_height(torso[:2])) / self._torso_height,
            contact.astype(jnp.float32), force / weight, info.feet_air_time,
            model.geom_friction[idx.floor, :1],
            data.qfrc_actuator[idx.dof_adr] / self._torque_limit,
        ])


_TERMS = tuple(f.name for f in dataclasses.fields(RewardScales))


def _quat_mul(a, b):
    aw, ax, ay, az = a[0], a[1], a[2], a[3]
    bw, bx, by, bz = b[0], b[1], b[2], b[3]
    return jnp.stack([aw * bw - ax * bx - ay * by - az * bz,
                      aw * bx + ax * bw + ay * bz - az * by,
                      aw * by - ax * bz + ay * bw + az * bx,
                      aw * bz + ax * by - ay * bx + az * bw])


def privileged_layout(nu: int, frame_size: int) -> list[tuple[str, int]]:
    """Names and sizes of the privileged observation's parts, in order (for inspection)."""
    return [("frame", frame_size), ("lin_vel", 3), ("ang_vel", 3), ("height", 1),
            ("feet_contact", 2), ("feet_force", 2), ("feet_air_time", 2), ("floor_friction", 1),
            ("joint_torque", nu)]

