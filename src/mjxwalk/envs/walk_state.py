"""The walk env's state: brax's `State` and the per-episode variables it carries."""

from __future__ import annotations

import jax
from brax.envs import base as brax_base
from flax import struct

from mjxwalk import randomize
from mjxwalk.compat import mjx


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
    """Joint part of the previous step's action (what the actor observes)."""
    last_clock: jax.Array
    """Clock part of the previous step's action: (1,) when the policy moves its gait clock
    (`WalkConfig.gait_frequency_span` or `gait_phase_offset_span`), else (0,)."""
    history: jax.Array
    """Observation frames, newest first, (history_length, frame_size)."""
    phase: jax.Array
    """Gait clock angle, rad, before the policy's shift (`gait_phase_offset_span`): the
    angle it sees is this + the shift its last action set."""
    feet_air_time: jax.Array
    """Seconds each foot has been off the ground."""
    last_contact: jax.Array
    """Whether each foot touched the ground at the previous step."""
    feet_pos: jax.Array
    """Foot body positions at the previous step, (n_feet, 3), for slip speed."""
    params: randomize.EpisodeParams
    """This episode's sensor errors, servo spread and delays."""
    targets: jax.Array
    """Joint targets of recent actions, newest first, for the action delay."""
    imu: jax.Array
    """Recent true IMU readings (gyro 3, orientation 4), newest first, for the IMU delay."""
    push_countdown: jax.Array
    """Control steps until the next push."""
    since_push: jax.Array
    """Seconds since the last push (a large number before the first)."""
    level: jax.Array
    """Terrain difficulty level (row of tiles) of this episode."""
    start_xy: jax.Array
    """Where the episode started, for the curriculum's distance."""
    commanded_distance: jax.Array
    """Distance the commands asked for so far this episode, m."""
    yaw_rates: jax.Array
    """Torso yaw rates of the last `yaw_rate_window` seconds, newest first, rad/s."""
