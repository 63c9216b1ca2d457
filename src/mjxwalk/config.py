"""Typed, frozen environment configs. Every field has a docstring; defaults are safe to share.

`override(config, **changes)` replaces fields by name (nested configs take a dict), and
rejects unknown names with a suggestion, before anything compiles.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
from typing import Any

from mjxwalk.errors import ConfigError


@dataclasses.dataclass(frozen=True)
class CommandConfig:
    """Velocity commands the policy learns to follow."""

    vx_range: tuple[float, float] = (-0.3, 0.5)
    """Forward speed command range, m/s (heading frame)."""
    vy_range: tuple[float, float] = (-0.2, 0.2)
    """Sideways speed command range, m/s (positive: left)."""
    yaw_rate_range: tuple[float, float] = (-1.0, 1.0)
    """Turn rate command range, rad/s (positive: counter-clockwise)."""
    zero_probability: float = 0.2
    """Share of commands that are exactly zero (stand still)."""
    axis_zero_probability: float = 0.0
    """Chance that each component on its own is zero (pure turns, straight walks). Off by
    default: at 0.2-0.3, with a heavier yaw term, 60-minute CPU runs learned to turn but
    not to walk forward (benchmarks/results/walk_cpu_60min_low_entropy.json)."""
    resample_period: float = 5.0
    """Seconds between new commands within an episode."""

    @property
    def low(self) -> tuple[float, float, float]:
        return (self.vx_range[0], self.vy_range[0], self.yaw_rate_range[0])

    @property
    def high(self) -> tuple[float, float, float]:
        return (self.vx_range[1], self.vy_range[1], self.yaw_rate_range[1])


Range = tuple[float, float] | None
"""A (low, high) range sampled uniformly; None switches that randomization off."""


@dataclasses.dataclass(frozen=True)
class ModelRandomization:
    """Physics-model domain randomization, resampled per environment (a batched mjx.Model)."""

    enabled: bool = True
    """Master switch; off gives every environment the nominal model exactly."""
    floor_friction: Range = (0.4, 1.0)
    """Sliding friction of the floor."""
    foot_friction: Range = (0.4, 1.0)
    """Sliding friction of the soles (MuJoCo takes the larger of the two in a contact)."""
    mass_scale: Range = (0.9, 1.1)
    """Factor on every link's mass (inertia scaled alike)."""
    payload: Range = (-0.1, 0.3)
    """Mass added to the torso, kg (a battery, a camera); scaled to a 3 kg robot."""
    com_offset: Range = (-0.02, 0.02)
    """Shift of the torso's center of mass along each axis, m."""
    armature_scale: Range = (1.0, 1.05)
    """Factor on the joints' armature (reflected rotor inertia)."""
    damping_scale: Range = (0.5, 2.0)
    """Factor on the joints' damping."""
    frictionloss_scale: Range = (0.5, 2.0)
    """Factor on the joints' dry friction."""
    kp_scale: Range = (0.9, 1.1)
    """Factor on each servo's position gain."""
    kd_scale: Range = (0.9, 1.1)
    """Factor on each servo's derivative gain."""
    torque_limit_scale: Range = (0.9, 1.1)
    """Factor on each servo's stall torque."""
    gravity_tilt: Range = (0.0, 0.05)
    """Tilt of gravity (a sloped floor), rad, in a random direction. The IMU orientation is
    relative to true gravity, so the robot reads the slope as its IMU would."""


@dataclasses.dataclass(frozen=True)
class SensorRandomization:
    """Per-episode errors of the robot's own sensing, drawn at reset."""

    joint_zero_offset: Range = (-0.03, 0.03)
    """Encoder calibration error per joint, rad: the servo and the policy see angle + offset."""
    imu_misalignment: Range = (0.0, 0.05)
    """IMU mounting error, rad, about a random axis."""
    gyro_bias: Range = (-0.05, 0.05)
    """Constant gyro offset per axis, rad/s."""
    gravity_bias: Range = (-0.03, 0.03)
    """Constant offset of the gravity direction per axis."""
    action_latency_error: Range = (-0.25, 0.25)
    """Constant error of the action latency the policy is told, control periods (with
    `observe_action_latency`): the runner times its own loop, not the servo's side of the
    delay, and the simulated delay takes only quarter-period steps."""


@dataclasses.dataclass(frozen=True)
class ServoModel:
    """Servo behaviour beyond an ideal PD, parameters drawn per episode around the datasheet."""

    torque_speed: bool = True
    """Torque limited by the datasheet line: stall torque at rest, zero at no-load speed."""
    velocity_limit: bool = True
    """No drive torque past the no-load speed (the servo cannot push a joint faster)."""
    no_load_speed_scale: Range = (0.9, 1.1)
    """Factor on each servo's no-load speed."""
    backlash: Range = None
    """Gear backlash, full width in rad (e.g. (0.0, 0.02)); None: no backlash."""


@dataclasses.dataclass(frozen=True)
class Latency:
    """Delays between the policy and the hardware, drawn per episode."""

    action_steps: tuple[int, int] = (0, 1)
    """Whole control periods before an action reaches the servos (inclusive range)."""
    action_substeps: tuple[int, int] = (0, 3)
    """Further physics substeps of delay (inclusive range, below the substep count)."""
    imu_steps: tuple[int, int] = (0, 1)
    """Control periods by which the IMU reading (gyro, orientation) lags."""


@dataclasses.dataclass(frozen=True)
class Noise:
    """Uniform observation noise per channel (± the value times `level`)."""

    level: float = 1.0
    """One knob for all channels; 0 turns noise off."""
    joint_pos: float = 0.01
    """rad."""
    joint_vel: float = 0.5
    """rad/s."""
    gyro: float = 0.1
    """rad/s."""
    gravity: float = 0.03
    """unit vector components."""
    action_latency: float = 0.1
    """control periods (the runner's timing of its own loop jitters)."""


@dataclasses.dataclass(frozen=True)
class Pushes:
    """Velocity kicks to the torso at random intervals."""

    enabled: bool = True
    """Switch."""
    interval: tuple[float, float] = (5.0, 10.0)
    """Seconds between kicks."""
    velocity: tuple[float, float] = (0.1, 0.5)
    """Size of the horizontal velocity change, m/s, in a random direction."""
    angular_velocity: float = 0.0
    """Largest change of the torso's angular velocity about each of its own axes with every
    kick, rad/s, drawn uniformly in plus or minus this (ToddlerBot kicks with 1.0); 0 kicks
    horizontally only and leaves the random streams as they were without the option."""


@dataclasses.dataclass(frozen=True)
class Curriculum:
    """Terrain difficulty levels on the rough scene, moved by success and failure."""

    enabled: bool = True
    """Off: every environment stays on its starting level."""
    start_level: int = 0
    """Highest level environments start on (drawn uniformly from 0..start_level)."""
    promote_distance: float = 0.5
    """Share of the commanded distance walked in an episode that moves an env a level up."""
    demote_distance: float = 0.25
    """Below this share of the commanded distance, an env that fell moves a level down."""


@dataclasses.dataclass(frozen=True)
class TerrainLayout:
    """How the rough scene's heightfield is tiled (see `mjxwalk.terrain.tiles`)."""

    levels: int = 10
    """Rows of tiles, easiest first."""
    columns: int = 6
    """Columns of tiles, cycling through rough, slope and steps."""
    tile_size: float = 2.0
    """Tile edge, m."""
    cell: float = 0.05
    """Heightfield resolution, m."""
    seed: int = 0
    """Seed of the random bumps."""


@dataclasses.dataclass(frozen=True)
class RewardScales:
    """Weight of each reward term (names equal the functions in `mjxwalk.rewards`)."""

    tracking_lin_vel: float = 2.0
    """Following the planar velocity command."""
    tracking_ang_vel: float = 2.0
    """Following the yaw rate command (averaged over `WalkConfig.yaw_rate_window`). Against
    the instantaneous rate, 2.0 made 60-minute CPU runs turn but stop walking forward and
    1.0 made them walk but hardly turn (benchmarks/results/walk_cpu_60min*.json)."""
    lin_vel_z: float = -0.5
    """Vertical bouncing of the torso."""
    ang_vel_xy: float = -0.05
    """Roll and pitch rates of the torso. At -0.2 a 60-minute CPU run rolled less (0.53 rad/s
    RMS against 0.78) but fell as often (benchmarks/results/walk_cpu_60min_ang_vel_xy.json)."""
    orientation: float = -2.0
    """Torso tilt."""
    torques: float = -2e-4
    """Squared actuator torques."""
    action_rate: float = -0.03
    """Change of the action between steps. At -0.01, 15% of 10 s forward episodes without
    pushes fell, mostly under the longest action delays; at -0.03 7% did (256 episodes
    each, benchmarks/results/walk_cpu_60min_action_rate_fall_causes.json). At -0.06, 6% fell
    and more kicks while walking ended in a fall (21% against 16%,
    benchmarks/results/walk_cpu_action_rate_006_pushes.json)."""
    feet_air_time: float = 1.0
    """Air time of each step (up to the target duration), paid at touch-down."""
    feet_phase: float = 1.0
    """Feet lifting and landing with the gait clock. At 0.5 a CPU run fell as often at 12.2M
    steps as the default did, and kicks from the front while walking still felled it most
    (benchmarks/results/walk_cpu_feet_phase_05.json)."""
    catch_step: float = 0.0
    """Touch-downs at the capture point in the seconds after a kick
    (`WalkConfig.catch_step_window`). Off by default: at 2.0, a 16M-step CPU run fell no
    less under kicks (24% of forward episodes against 20%; its first step after a kick was
    mostly already in the air, benchmarks/results/walk_cpu_recipe_catch_step*.json)."""
    feet_slip: float = -0.1
    """Feet sliding on the ground."""
    pose: float = -0.05
    """Distance from the default pose."""
    stand_still: float = -0.2
    """Moving while commanded to stand."""
    termination: float = -1.0
    """Falling."""
    alive: float = 0.5
    """Every step survived."""


@dataclasses.dataclass(frozen=True)
class WalkConfig:
    """The walk task: follow a velocity command on flat or rough ground."""

    terrain: str = "flat"
    """'flat' or 'rough'."""
    terrain_layout: TerrainLayout = TerrainLayout()
    """Tiles of the rough terrain: levels (difficulty rows), kinds, sizes."""
    floor_contacts: str = "feet"
    """'feet' (only the soles touch the floor: fast) or 'all' collision geoms."""
    episode_length: int = 1000
    """Control steps per episode (1000 x 0.02 s = 20 s)."""
    history_length: int = 3
    """Observation frames the actor sees, newest first. Three let the policy infer what one
    frame hides (its own delays, the body's velocity after a push): at 60 CPU minutes they
    walked faster and fell less than one (`benchmarks/results/walk_cpu_60min_history3.json`)."""
    gait_phase: bool = True
    """Give the actor a gait clock (cos, sin)."""
    gait_frequency: float = 1.5
    """Gait clock frequency, Hz."""
    gait_frequency_span: float = 0.0
    """Hz the policy may move its own gait clock by: > 0 adds one action after the joints',
    a in [-1, 1], and the clock runs at gait_frequency + span x a, so a kicked robot can
    step sooner than the clock would let it. 0: no such action, the clock is fixed. At 0.5
    the kidbot recipe run kept its clock within 1.48-1.56 Hz after every kick and fell more
    (benchmarks/results/walk_cpu_recipe_clock_span_05.json)."""
    gait_phase_offset_span: float = 0.0
    """rad the policy may shift its gait clock by, step by step: > 0 adds one action after
    the joints', a in [-1, 1], and the clock the policy sees and is rewarded on is the fixed
    clock's angle + span x a, and a `gait_phase_shift` block in every frame shows the shift
    (so the actor knows where the clock underneath is). Unlike a rate, one step's value
    moves the next touch-down at once, so per-step exploration can try a sooner catch step;
    the shift is not kept (the next step's action sets it again). 0: no such action. At most pi (a full half-cycle
    either way); not together with gait_frequency_span (one clock action at a time)."""
    observe_action_latency: bool = False
    """Give the actor this episode's action delay (`latency.action_steps` plus substeps, in
    control periods), which the robot's runner measures from its own loop timing. The falls
    under kicks follow the delay (docs/walk_runs.md), and three history frames show it only
    indirectly."""
    obs_scales: tuple[tuple[str, float], ...] = ()
    """(block, scale) pairs replacing `mjxwalk.obs.DEFAULT_SCALES` entries."""
    commands: CommandConfig = CommandConfig()
    """Command ranges and resampling."""
    rewards: RewardScales = RewardScales()
    """Reward term weights."""
    tracking_sigma: float = 0.06
    """Width of the planar velocity tracking kernel, (m/s)². Narrow enough that standing
    still under a 0.3 m/s command earns a fifth of the tracking reward."""
    yaw_tracking_sigma: float = 0.25
    """Width of the yaw rate tracking kernel, (rad/s)²."""
    yaw_rate_window: float | None = None
    """Seconds over which the torso yaw rate is averaged before the yaw tracking reward
    compares it with the command. None: one gait cycle, which cancels the twist of each
    step, so only net turning counts and a walking gait is not paid less for its wobble.
    One control period (0.02): the instantaneous rate."""
    feet_air_time_target: float = 0.3
    """Air time per step up to which feet_air_time pays, s (half a gait cycle at 1.5 Hz
    is 0.33 s)."""
    swing_height: float = 0.03
    """Peak foot clearance the gait clock asks of a swinging foot, m."""
    feet_phase_sigma: float = 4e-4
    """Width of the feet_phase kernel, m² (2 cm of error costs a factor e)."""
    catch_step_window: float = 0.7
    """Seconds after a kick in which catch_step pays for touch-downs (two steps at 1.5 Hz)."""
    catch_step_sigma: float = 0.005
    """Width of the catch_step kernel, m² (7 cm from the target costs a factor e)."""
    kick_recovery_window: float = 0.0
    """Seconds after a kick in which the terms that shape the gait
    (`mjxwalk.envs.walk.RECOVERY_FREE_TERMS`: feet_phase, feet_air_time, pose, stand_still)
    pay and cost nothing, so a recovery step off the clock or out of the standing pose is
    not taught away; the critic is told how much of the window is left. 0: off. At 1.0 a
    CPU run of the 0.995 config fell more under kicks (11.5% of kicks while walking against
    6.8%; benchmarks/results/walk_cpu_0995_recovery_window*.json)."""
    fall_height_fraction: float = 0.6
    """A fall: torso below this fraction of its standing height above the ground."""
    fall_tilt: float = 0.9
    """A fall: torso tilted past this angle, rad."""
    initial_joint_noise: float = 0.05
    """Uniform noise on the joint angles at reset, rad."""
    initial_velocity_noise: float = 0.05
    """Uniform noise on the root velocity at reset, m/s and rad/s."""
    spawn_xy_range: float = 2.0
    """Robots start uniformly within ±this of the origin, m (samples the terrain)."""
    randomization: ModelRandomization = ModelRandomization()
    """Physics-model domain randomization (applied by `mjxwalk.randomize`)."""
    sensors: SensorRandomization = SensorRandomization()
    """Per-episode sensor errors."""
    servo: ServoModel = ServoModel()
    """Servo torque-speed, velocity limit and backlash."""
    latency: Latency = Latency()
    """Action and IMU delays."""
    noise: Noise = Noise()
    """Observation noise."""
    pushes: Pushes = Pushes()
    """Velocity kicks."""
    curriculum: Curriculum = Curriculum()
    """Terrain levels (rough terrain only)."""
    solver_iterations: int | None = None
    """Constraint solver iterations; None keeps the MJCF's."""
    ls_iterations: int | None = None
    """Solver line-search iterations; None keeps the MJCF's."""

    def __post_init__(self):
        checks = [
            (self.terrain in ("flat", "rough"), f"terrain must be 'flat' or 'rough', got {self.terrain!r}"),
            (self.floor_contacts in ("feet", "all"), "floor_contacts must be 'feet' or 'all'"),
            (self.episode_length > 0, "episode_length must be > 0"),
            (self.history_length >= 1, "history_length must be >= 1"),
            (self.gait_frequency > 0, "gait_frequency must be > 0"),
            (0 <= self.gait_frequency_span < self.gait_frequency,
             "gait_frequency_span must be >= 0 and below gait_frequency (the clock must run "
             "forward)"),
            (self.gait_phase or self.gait_frequency_span == 0,
             "gait_frequency_span needs gait_phase (the policy must see the clock it moves)"),
            (0 <= self.gait_phase_offset_span <= math.pi,
             "gait_phase_offset_span must be in [0, pi] rad"),
            (self.gait_phase or self.gait_phase_offset_span == 0,
             "gait_phase_offset_span needs gait_phase (the policy must see the clock it moves)"),
            (self.gait_frequency_span == 0 or self.gait_phase_offset_span == 0,
             "gait_frequency_span and gait_phase_offset_span are two clock actions: set one"),
            (0 < self.fall_height_fraction < 1, "fall_height_fraction must be in (0, 1)"),
            (0 < self.fall_tilt < 3.2, "fall_tilt must be in (0, pi) rad"),
            (self.tracking_sigma > 0, "tracking_sigma must be > 0"),
            (self.yaw_tracking_sigma > 0, "yaw_tracking_sigma must be > 0"),
            (self.yaw_rate_window is None or self.yaw_rate_window > 0,
             "yaw_rate_window must be > 0 s (or None: one gait cycle)"),
            (self.feet_phase_sigma > 0, "feet_phase_sigma must be > 0"),
            (self.swing_height >= 0, "swing_height must be >= 0"),
            (self.catch_step_window >= 0, "catch_step_window must be >= 0 s"),
            (self.catch_step_sigma > 0, "catch_step_sigma must be > 0"),
            (self.kick_recovery_window >= 0, "kick_recovery_window must be >= 0 s"),
            (0 <= self.pushes.velocity[0] <= self.pushes.velocity[1],
             "pushes.velocity must be (low, high) m/s with 0 <= low <= high"),
            (0 < self.pushes.interval[0] <= self.pushes.interval[1],
             "pushes.interval must be (low, high) s with 0 < low <= high"),
            (self.pushes.angular_velocity >= 0, "pushes.angular_velocity must be >= 0 rad/s"),
            (0 <= self.commands.zero_probability <= 1, "commands.zero_probability must be in [0, 1]"),
            (0 <= self.commands.axis_zero_probability <= 1,
             "commands.axis_zero_probability must be in [0, 1]"),
            (self.commands.resample_period > 0, "commands.resample_period must be > 0"),
            (all(lo <= hi for lo, hi in zip(self.commands.low, self.commands.high)),
             "command ranges must be (low, high) with low <= high"),
        ]
        for ok, message in checks:
            if not ok:
                raise ConfigError(message)


def without_randomization(config: WalkConfig) -> WalkConfig:
    """The same task with every randomization, servo non-ideality, delay, noise, push and
    curriculum move switched off: the nominal robot in a perfect world."""
    return dataclasses.replace(
        config,
        randomization=dataclasses.replace(config.randomization, enabled=False),
        sensors=SensorRandomization(None, None, None, None, None),
        servo=ServoModel(torque_speed=False, velocity_limit=False, no_load_speed_scale=None,
                         backlash=None),
        latency=Latency((0, 0), (0, 0), (0, 0)),
        noise=dataclasses.replace(config.noise, level=0.0),
        pushes=dataclasses.replace(config.pushes, enabled=False),
        curriculum=dataclasses.replace(config.curriculum, enabled=False),
    )


def _check_kind(owner: str, name: str, current: Any, value: Any) -> None:
    """Refuse a value of the wrong kind for a flag or a number: `--set` keeps text that is
    not JSON as a string, and the string 'False' is true."""
    if isinstance(current, bool) and not isinstance(value, bool):
        raise ConfigError(f"{owner}.{name} is true or false (JSON: true, false), got {value!r}")
    if (isinstance(current, (int, float)) and not isinstance(current, bool)
            and (isinstance(value, bool) or not isinstance(value, (int, float)))):
        raise ConfigError(f"{owner}.{name} is a number, got {value!r}")


def override(config: Any, **changes: Any) -> Any:
    """A copy of `config` with fields replaced; nested dataclasses accept dicts."""
    fields = {f.name: f for f in dataclasses.fields(config)}
    updates = {}
    for name, value in changes.items():
        if name not in fields:
            close = difflib.get_close_matches(name, list(fields), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ConfigError(f"{type(config).__name__} has no field {name!r}{hint}")
        current = getattr(config, name)
        _check_kind(type(config).__name__, name, current, value)
        if dataclasses.is_dataclass(current) and isinstance(value, dict):
            value = override(current, **value)
        elif isinstance(current, tuple) and isinstance(value, list):
            value = tuple(value)
        updates[name] = value
    return dataclasses.replace(config, **updates)
