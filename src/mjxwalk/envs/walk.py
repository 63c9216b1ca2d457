"""Walk: follow a velocity command (forward, sideways, turn) on flat or rough ground.

A short composition of the pieces: scene (model), sim (physics), walk_sensing (what the
robot measures and the critic sees, by the observation contract), commands, rewards;
walk_state holds the per-episode variables, walk_mirror the left-right maps.
Brax-compatible: `reset(rng)` and `step(state, action)` are pure and jit/vmap cleanly;
`reset_with` / `step_with` take the physics model as an argument so domain randomization
is a vmap over a batched `mjx.Model`.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
from brax.envs import base as brax_base

from mjxwalk import commands, geometry, obs, randomize, rewards, scene, sim
from mjxwalk import terrain as terrain_lib
from mjxwalk.compat import mjx
from mjxwalk.config import RewardScales, WalkConfig
from mjxwalk.contract import PolicyContract
from mjxwalk.envs.walk_mirror import Mirror, make_mirror
from mjxwalk.envs.walk_sensing import Sensing, privileged_layout
from mjxwalk.envs.walk_state import State, WalkInfo
from mjxwalk.errors import ConfigError, SpecError
from mjxwalk.robot import RobotSpec


def put_model(mj_model: mujoco.MjModel, robot: RobotSpec) -> mjx.Model:
    """mjx.put_model, with MJX's unsupported-feature errors naming the robot's files."""
    try:
        # MJX defaults to jax.devices()[0], which belongs to process 0 in a multi-host run
        return mjx.put_model(mj_model, device=jax.local_devices()[0])
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
                                     layout=config.terrain_layout)
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
            obs_blocks=obs.make_blocks(robot.nu, config.gait_phase, dict(config.obs_scales),
                                       action_latency=config.observe_action_latency,
                                       gait_phase_shift=config.gait_phase_offset_span > 0),
            history_length=config.history_length,
            command_names=obs.COMMAND_NAMES,
            command_low=config.commands.low,
            command_high=config.commands.high,
            gait_frequency=config.gait_frequency if config.gait_phase else 0.0,
            gait_frequency_span=config.gait_frequency_span,
            gait_phase_offset_span=config.gait_phase_offset_span,
        )
        self._init_constants(mj_model)
        self._mirror: Mirror | None = None

    @property
    def mirror(self) -> Mirror:
        """Left-right mirror maps of this env's observations and actions (for symmetry
        augmentation); raises `SpecError` naming the joint if the robot is not symmetric."""
        if self._mirror is None:
            self._mirror = make_mirror(self.mj_model, self.robot, self.contract,
                                       self.recovery_size)
        return self._mirror

    def _init_constants(self, mj_model: mujoco.MjModel) -> None:
        robot, idx = self.robot, self.index
        qpos0 = mj_model.qpos0.copy()
        qpos0[:7] = robot.default_base_qpos
        qpos0[idx.qpos_adr] = robot.array("default")
        data = mujoco.MjData(mj_model)
        data.qpos[:] = qpos0
        mujoco.mj_kinematics(mj_model, data)
        self._torso_height = float(data.xpos[idx.torso_body, 2])
        # foot body height above the ground when standing: clearance is measured from it
        self._foot_rest_height = jnp.asarray(data.xpos[list(idx.feet), 2], jnp.float32)
        mujoco.mj_comPos(mj_model, data)
        com = data.subtree_com[idx.torso_body]
        # where each foot stands relative to the centre of mass, in the torso's heading frame
        self.stance_offset = jnp.asarray(data.xpos[list(idx.feet), :2] - com[:2], jnp.float32)
        # the linear inverted pendulum's time constant sqrt(z / g), for the capture point
        # (the standing robot's soles are at z = 0)
        self.com_time_constant = float(np.sqrt(com[2] / -mj_model.opt.gravity[2]))
        self._default_qpos = jnp.asarray(qpos0, jnp.float32)
        self._default_pose = jnp.asarray(robot.array("default"), jnp.float32)
        self._action_scale = jnp.asarray(robot.array("action_scale"), jnp.float32)
        self._lower = jnp.asarray(robot.array("range")[:, 0], jnp.float32)
        self._upper = jnp.asarray(robot.array("range")[:, 1], jnp.float32)
        self._data_template = mjx.make_data(self.mjx_model, device=jax.local_devices()[0])
        if idx.hfield >= 0:
            h = idx.hfield
            n = mj_model.hfield_nrow[h] * mj_model.hfield_ncol[h]
            adr = mj_model.hfield_adr[h]
            self._heights = jnp.asarray(mj_model.hfield_data[adr:adr + n].reshape(
                mj_model.hfield_nrow[h], mj_model.hfield_ncol[h]), jnp.float32)
            self._hfield_size = tuple(float(x) for x in mj_model.hfield_size[h])
        else:
            self._heights = None
        self.sensing = Sensing(
            index=idx, contract=self.contract, noise=self.config.noise, n_substeps=self.n_substeps,
            torso_height=self._torso_height, weight=float(mj_model.body_subtreemass[1] * 9.81),
            torso_mass=float(mj_model.body_mass[idx.torso_body]),
            torque_limit=jnp.asarray(robot.array("torque_limit"), jnp.float32),
            ground_height=self.ground_height,
            kick_recovery_window=self.config.kick_recovery_window)
        self._resample_steps = max(1, round(self.config.commands.resample_period / self.dt))
        self._no_load_speed = jnp.asarray(robot.array("velocity_limit"), jnp.float32)
        lat = self.config.latency
        if not 0 <= lat.action_substeps[0] <= lat.action_substeps[1] < self.n_substeps:
            raise ConfigError(f"latency.action_substeps {lat.action_substeps} must lie within "
                              f"0..{self.n_substeps - 1} (the substeps of one control period)")
        for name in ("action_steps", "imu_steps"):
            lo, hi = getattr(lat, name)
            if not 0 <= lo <= hi:
                raise ConfigError(f"latency.{name} must be (low, high) with 0 <= low <= high")
        self._target_buffer = lat.action_steps[1] + 2  # delayed target and the one before it
        self._imu_buffer = lat.imu_steps[1] + 1
        window = self.config.yaw_rate_window or 1.0 / self.config.gait_frequency
        self._yaw_rate_steps = max(1, round(window / self.dt))
        push = self.config.pushes
        self._push_steps = (max(1, round(push.interval[0] / self.dt)),
                            max(1, round(push.interval[1] / self.dt)))

    # ------------------------------------------------------------------ brax interface

    @property
    def dt(self) -> float:
        return self.robot.control_period

    @property
    def action_size(self) -> int:
        return self.contract.action_size

    @property
    def observation_size(self) -> dict[str, tuple[int, ...]]:
        return {"state": (self.contract.observation_size,),
                "privileged_state": (self.privileged_size,)}

    @property
    def privileged_parts(self) -> list[tuple[str, int]]:
        """(name, size) of each part of the privileged observation, in order."""
        return privileged_layout(self.robot.nu, self.contract.frame_size,
                                 self.contract.clock_size, self.recovery_size)

    @property
    def recovery_size(self) -> int:
        """1 when the critic sees how much of the kick recovery window is left, else 0."""
        return 1 if self.config.kick_recovery_window > 0 else 0

    @property
    def privileged_size(self) -> int:
        return sum(size for _, size in self.privileged_parts)

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

    def spawn_point(self, rng: jax.Array, level: jax.Array) -> jax.Array:
        """Where an episode starts: a tile centre of `level` on rough ground, else near 0."""
        cfg = self.config
        if self._heights is None:
            return jax.random.uniform(rng, (2,), minval=-cfg.spawn_xy_range,
                                      maxval=cfg.spawn_xy_range)
        layout = cfg.terrain_layout
        k_col, k_jit = jax.random.split(rng)
        column = jax.random.randint(k_col, (), 0, layout.columns)
        x, y = terrain_lib.tile_center(level, column, layout.levels, layout.columns,
                                       layout.tile_size)
        jitter = jax.random.uniform(k_jit, (2,), minval=-0.1, maxval=0.1)
        return jnp.stack([x, y]).astype(jnp.float32) + jitter

    def sample_episode(self, rng: jax.Array) -> randomize.EpisodeParams:
        cfg = self.config
        return randomize.sample_episode(rng, self.robot.nu, self._no_load_speed, cfg.sensors,
                                        cfg.servo, cfg.latency)

    def reset_with(self, model: mjx.Model, rng: jax.Array, level: jax.Array | None = None) -> State:
        cfg, idx = self.config, self.index
        keys = jax.random.split(rng, 10)
        rng = keys[0]
        if level is None:
            level = jax.random.randint(keys[1], (), 0, cfg.curriculum.start_level + 1)
        qpos = self._default_qpos
        joint = self._default_pose + jax.random.uniform(
            keys[2], (self.robot.nu,), minval=-cfg.initial_joint_noise, maxval=cfg.initial_joint_noise)
        qpos = qpos.at[idx.qpos_adr].set(jnp.clip(joint, self._lower, self._upper))
        yaw = jax.random.uniform(keys[3], minval=-jnp.pi, maxval=jnp.pi)
        yaw_quat = jnp.array([jnp.cos(yaw / 2), 0.0, 0.0, jnp.sin(yaw / 2)])
        qpos = qpos.at[3:7].set(geometry.quat_mul(yaw_quat, qpos[3:7], xp=jnp))
        xy = self.spawn_point(keys[4], level)
        qpos = qpos.at[0:2].set(xy).at[2].add(self.ground_height(xy))
        qvel = jnp.zeros(model.nv).at[0:6].set(jax.random.uniform(
            keys[5], (6,), minval=-cfg.initial_velocity_noise, maxval=cfg.initial_velocity_noise))
        data = self._data_template.replace(qpos=qpos, qvel=qvel)
        data = mjx.forward(model, data)

        command = commands.sample_command(keys[6], cfg.commands)
        phase = jax.random.uniform(keys[7], minval=0.0, maxval=2 * jnp.pi)
        params = self.sample_episode(keys[8])
        action = jnp.zeros(self.robot.nu)
        last_clock = jnp.zeros(self.contract.clock_size)
        imu_now = self.sensing.true_imu(model, data)
        imu = jnp.tile(imu_now[None], (self._imu_buffer, 1))
        contact, force = sim.feet_contact(model, data, idx)
        info = WalkInfo(
            rng=rng, step=jnp.zeros((), jnp.int32), command=command, last_action=action,
            last_clock=last_clock,
            history=jnp.zeros((self.contract.history_length, self.contract.frame_size)),
            phase=phase, feet_air_time=jnp.zeros(len(idx.feet)), last_contact=contact,
            feet_pos=data.xpos[idx.feet], params=params,
            targets=jnp.tile(joint[None], (self._target_buffer, 1)), imu=imu,
            push_countdown=self._draw_push_countdown(keys[9]),
            since_push=jnp.asarray(_LONG_AGO, jnp.float32), level=jnp.asarray(level, jnp.int32),
            start_xy=xy, commanded_distance=jnp.zeros(()),
            yaw_rates=jnp.full(self._yaw_rate_steps, sim.local_velocity(data)[1][2]))
        rng, k_noise = jax.random.split(rng)
        first = self.sensing.actor_frame(model, data, info, action, command, phase, k_noise)
        info = info.replace(rng=rng, history=obs.initial_history(self.contract, first, xp=jnp))
        zero = jnp.zeros(())
        metrics = {f"reward/{name}": zero for name in _TERMS}
        metrics.update(nan_resets=zero, falls=zero, pushes=zero, lin_vel_error=zero,
                       yaw_rate_error=zero, terrain_level=info.level.astype(jnp.float32),
                       gait_frequency=jnp.asarray(cfg.gait_frequency, jnp.float32),
                       gait_phase_offset=zero, gait_phase_offset_abs=zero)
        observation = {"state": obs.actor_observation(info.history, xp=jnp),
                       "privileged_state": self.sensing.privileged(
                           model, data, info, action, command, phase, contact, force)}
        return State(pipeline_state=data, obs=observation, reward=zero, done=zero,
                     metrics=metrics, info={"walk": info})

    def _draw_push_countdown(self, rng):
        return jax.random.randint(rng, (), self._push_steps[0], self._push_steps[1] + 1)

    def step_with(self, model: mjx.Model, state: State, action: jax.Array) -> State:
        cfg, idx = self.config, self.index
        info: WalkInfo = state.info["walk"]
        params = info.params
        full_action = jnp.clip(action, -1.0, 1.0)
        action, frequency, offset = self.split_action(full_action)
        clock = full_action[self.robot.nu:]
        target = jnp.clip(self._default_pose + action * self._action_scale, self._lower, self._upper)
        targets = obs.push_history(info.targets, target, xp=jnp)
        data = sim.step_physics(model, state.data, idx, targets[params.action_delay],
                                targets[params.action_delay + 1], params.action_delay_substeps,
                                self.n_substeps, self.robot.actuator_kind, params.servo, cfg.servo)
        # a blown-up env keeps its last good state, is marked done (auto-reset) and counted
        finite = sim.is_finite(data)
        data = jax.tree.map(lambda new, old: jnp.where(finite, new, old), data, state.data)

        rng, k_cmd, k_push, k_next, k_noise = jax.random.split(info.rng, 5)
        push_now = (info.push_countdown <= 1) & cfg.pushes.enabled
        pushed, _ = randomize.apply_push(data, k_push, cfg.pushes.velocity,
                                         cfg.pushes.angular_velocity)
        data = data.replace(qvel=jnp.where(push_now, pushed.qvel, data.qvel))
        push_countdown = jnp.where(info.push_countdown <= 1, self._draw_push_countdown(k_next),
                                   info.push_countdown - 1)
        since_push = jnp.where(push_now, 0.0, jnp.minimum(info.since_push + self.dt, _LONG_AGO))

        step = info.step + 1
        resample = (step % self._resample_steps) == 0
        new_command = commands.sample_command(k_cmd, cfg.commands)
        command = jnp.where(resample, new_command, info.command)
        clock_phase = commands.advance_phase(info.phase, frequency, self.dt)
        # what the policy sees and is rewarded on; the fixed clock runs on underneath
        phase = clock_phase + offset

        contact, force = sim.feet_contact(model, data, idx)
        feet_pos = data.xpos[idx.feet]
        feet_velocity = (feet_pos - info.feet_pos) / self.dt
        air_time = info.feet_air_time + self.dt
        first_contact = contact & ~info.last_contact
        clearance = (feet_pos[:, 2] - jax.vmap(self.ground_height)(feet_pos[:, :2])
                     - self._foot_rest_height)

        lin_vel, ang_vel = sim.local_velocity(data)
        torso_rot = data.xmat[idx.torso_body]
        gravity = -torso_rot[2]  # world -z seen in the torso frame
        height = data.xpos[idx.torso_body, 2] - self.ground_height(data.xpos[idx.torso_body, :2])
        fell = (height < cfg.fall_height_fraction * self._torso_height) | \
            (torso_rot[2, 2] < jnp.cos(cfg.fall_tilt))
        joint_offset = data.qpos[idx.qpos_adr] - self._default_pose
        yaw_rates = jnp.concatenate([ang_vel[2:3], info.yaw_rates[:-1]])
        terms = {
            "tracking_lin_vel": rewards.tracking_lin_vel(command, lin_vel, cfg.tracking_sigma),
            "tracking_ang_vel": rewards.tracking_ang_vel(command, jnp.mean(yaw_rates),
                                                         cfg.yaw_tracking_sigma),
            "lin_vel_z": rewards.lin_vel_z(lin_vel),
            "ang_vel_xy": rewards.ang_vel_xy(ang_vel),
            "orientation": rewards.orientation(gravity),
            "torques": rewards.torques(data.qfrc_actuator[idx.dof_adr]),
            "action_rate": rewards.action_rate(
                full_action, jnp.concatenate([info.last_action, info.last_clock])),
            "feet_air_time": rewards.feet_air_time(air_time, first_contact, command,
                                                   cfg.feet_air_time_target),
            "feet_phase": rewards.feet_phase(clearance, phase, command, cfg.swing_height,
                                             cfg.feet_phase_sigma),
            "catch_step": rewards.catch_step(
                feet_pos[:, :2], first_contact,
                self.catch_targets(data),
                since_push, cfg.catch_step_window, cfg.catch_step_sigma),
            "feet_slip": rewards.feet_slip(contact, feet_velocity),
            "pose": rewards.pose(joint_offset),
            "stand_still": rewards.stand_still(joint_offset, command),
            "termination": rewards.termination(fell),
            "alive": rewards.alive(),
        }
        scaled = {name: value * getattr(cfg.rewards, name) for name, value in terms.items()}
        if cfg.kick_recovery_window > 0:  # a Python branch: without it the step is as before
            recovering = since_push < cfg.kick_recovery_window
            for name in RECOVERY_FREE_TERMS:
                scaled[name] = jnp.where(recovering, 0.0, scaled[name])
        reward = jnp.where(finite, sum(scaled.values()), 0.0)

        info = info.replace(
            rng=rng, step=step, command=command, last_action=action, last_clock=clock,
            phase=clock_phase,
            feet_air_time=jnp.where(contact, 0.0, air_time), last_contact=contact,
            feet_pos=feet_pos, targets=targets,
            imu=obs.push_history(info.imu, self.sensing.true_imu(model, data), xp=jnp),
            push_countdown=push_countdown, since_push=since_push, yaw_rates=yaw_rates,
            commanded_distance=info.commanded_distance + jnp.linalg.norm(command[:2]) * self.dt)
        frame = self.sensing.actor_frame(model, data, info, action, command, phase, k_noise)
        info = info.replace(history=obs.push_history(info.history, frame, xp=jnp))
        done = fell | ~finite
        info = info.replace(level=jnp.where(done, self.next_level(info, data, fell), info.level))
        metrics = {f"reward/{name}": value for name, value in scaled.items()}
        metrics.update(
            nan_resets=(~finite).astype(jnp.float32), falls=fell.astype(jnp.float32),
            pushes=push_now.astype(jnp.float32),
            lin_vel_error=jnp.linalg.norm(command[:2] - lin_vel[:2]),
            yaw_rate_error=jnp.abs(command[2] - ang_vel[2]),
            terrain_level=info.level.astype(jnp.float32), gait_frequency=frequency,
            gait_phase_offset=offset, gait_phase_offset_abs=jnp.abs(offset))
        observation = {"state": obs.actor_observation(info.history, xp=jnp),
                       "privileged_state": self.sensing.privileged(
                           model, data, info, action, command, phase, contact, force)}
        observation = jax.tree.map(lambda x: jnp.nan_to_num(x, posinf=0.0, neginf=0.0), observation)
        return state.replace(pipeline_state=data, obs=observation, reward=reward,
                             done=done.astype(jnp.float32), metrics=metrics,
                             info={**state.info, "walk": info})

    def split_action(self, action: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        """An action's joint part, (nu,) in [-1, 1]; the gait clock frequency it sets, Hz
        (`gait_frequency`, moved by up to `gait_frequency_span` with the last value); and
        the shift it puts on the clock's angle, rad (up to `gait_phase_offset_span`, the
        same last value). Without a clock action: the fixed frequency and no shift."""
        cfg = self.config
        frequency = jnp.asarray(cfg.gait_frequency, jnp.float32)
        if self.contract.clock_size == 0:
            return action, frequency, jnp.zeros((), jnp.float32)
        nu, clock = self.robot.nu, action[self.robot.nu]
        return (action[:nu], frequency + cfg.gait_frequency_span * clock,
                cfg.gait_phase_offset_span * clock)

    def catch_targets(self, data: mjx.Data) -> jax.Array:
        """World xy (n_feet, 2) where each foot would catch the body now (`catch_targets`)."""
        idx = self.index
        return catch_targets(data.subtree_com[idx.torso_body], data.qvel[0:2],
                             data.xmat[idx.torso_body], self.stance_offset, self.com_time_constant)

    def next_level(self, info: WalkInfo, data: mjx.Data, fell: jax.Array) -> jax.Array:
        """Curriculum at the end of an episode: up after walking far, down after failing."""
        cur = self.config.curriculum
        if self._heights is None or not cur.enabled:
            return info.level
        walked = jnp.linalg.norm(data.qpos[0:2] - info.start_xy)
        asked = jnp.maximum(info.commanded_distance, 1e-3)
        up = (walked >= cur.promote_distance * asked) & ~fell & (info.commanded_distance > 0.5)
        down = fell & (walked < cur.demote_distance * asked)
        level = info.level + up.astype(jnp.int32) - down.astype(jnp.int32)
        return jnp.clip(level, 0, self.config.terrain_layout.levels - 1)

    def respawn(self, model: mjx.Model, first: State, ended: State, rng: jax.Array) -> State:
        """A new episode from a cached first state, cheaply: moved to a tile of the ended
        episode's level, with fresh per-episode randomization and command.

        Observations of the first state do not depend on the horizontal position and the
        height is kept relative to the ground, so they stay valid; the next physics step
        recomputes everything else from qpos.
        """
        info: WalkInfo = first.info["walk"]
        level = ended.info["walk"].level
        k_xy, k_params, k_cmd, k_rng = jax.random.split(rng, 4)
        xy = self.spawn_point(k_xy, level)
        old_xy = first.data.qpos[0:2]
        dz = self.ground_height(xy) - self.ground_height(old_xy)
        shift = jnp.concatenate([xy - old_xy, dz[None]])
        data = first.data.replace(qpos=first.data.qpos.at[0:3].add(shift))
        cfg = self.config
        info = info.replace(
            rng=k_rng, level=level, start_xy=xy, feet_pos=info.feet_pos + shift,
            params=self.sample_episode(k_params),
            command=commands.sample_command(k_cmd, cfg.commands))
        return first.replace(pipeline_state=data, info={**first.info, "walk": info})


_TERMS = tuple(f.name for f in dataclasses.fields(RewardScales))
_LONG_AGO = 1e6  # seconds since a push, before the first one
RECOVERY_FREE_TERMS = ("feet_phase", "feet_air_time", "pose", "stand_still")
"""Reward terms that shape the gait rather than keep the robot up: off for
`WalkConfig.kick_recovery_window` seconds after each kick."""


def catch_targets(com: jax.Array, com_velocity: jax.Array, torso_rot: jax.Array,
                  stance_offset: jax.Array, time_constant: float) -> jax.Array:
    """Where each foot would catch the body, world xy (n_feet, 2): the capture point
    com + velocity x time_constant, shifted by each foot's standing offset from the centre
    of mass turned to the torso's heading. In steady walking at 1.5 Hz the velocity term is
    about the half-stride a foot lands ahead, so the target fits the gait as well as a kick."""
    heading = jnp.arctan2(torso_rot[1, 0], torso_rot[0, 0])
    c, s = jnp.cos(heading), jnp.sin(heading)
    rotation = jnp.array([[c, -s], [s, c]])
    capture = com[:2] + com_velocity[:2] * time_constant
    return capture + stance_offset @ rotation.T
