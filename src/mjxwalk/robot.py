"""Robot specs: an MJCF file plus a small TOML file -> a validated `RobotSpec`.

Host side only (numpy + mujoco). Every name in the spec is checked against the model once,
here, so that a misspelt joint fails with a message naming the spec file, never deep inside
JAX. The spec is the single source of truth for servo gains and limits: the compiled model's
actuators are rewritten from it (see `compile_model`).
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import os
import tomllib
from pathlib import Path
from typing import Any, Mapping

import mujoco
import numpy as np

from mjxwalk.errors import SpecError

TERRAINS = ("flat", "rough")
"""Scenes every robot can be placed in."""

_TOP_KEYS = {
    "name": "robot name",
    "mjcf": "path of the robot MJCF, relative to the spec file",
    "torso_body": "body whose height and tilt define a fall",
    "imu_site": "site the IMU is mounted at (or give imu_body)",
    "imu_body": "body to mount an IMU site at, if the MJCF has no IMU site",
    "feet": "foot bodies, left first (their collision geoms touch the ground)",
    "default_pose": "keyframe name, or a table joint -> angle (rad)",
    "action_scale": "rad of target offset per unit of action",
    "control_period": "seconds between policy actions",
    "timestep": "physics timestep override (s); default: the MJCF's",
    "joints": "actuated joints in policy order",
    "servo": "default servo parameters for every joint",
    "scenes": "optional scene files per terrain",
}
_SERVO_KEYS = ("kp", "kd", "torque_limit", "velocity_limit")
_JOINT_KEYS = ("name", "servo_id", "action_scale", *_SERVO_KEYS)


@dataclasses.dataclass(frozen=True)
class JointSpec:
    """One actuated joint, as the policy and the servo bus see it."""

    name: str
    """MJCF joint name (the actuator driving it is found by its transmission)."""
    servo_id: int
    """Servo id on the bus (Dynamixel ids are 0..252)."""
    kp: float
    """Position gain, N·m/rad."""
    kd: float
    """Derivative gain, N·m·s/rad, on top of the joint's own damping."""
    torque_limit: float
    """Largest torque the servo produces (stall torque), N·m."""
    velocity_limit: float
    """No-load speed, rad/s."""
    action_scale: float
    """Target offset from the default pose per unit of action, rad."""
    range: tuple[float, float]
    """Joint limits from the MJCF, rad."""
    default: float
    """Default (standing) angle, rad."""


@dataclasses.dataclass(frozen=True)
class RobotSpec:
    """A humanoid described by its MJCF file and spec file, all names validated."""

    name: str
    """Robot name."""
    spec_path: Path
    """The TOML spec file this came from."""
    mjcf_path: Path
    """The robot's MJCF file."""
    joints: tuple[JointSpec, ...]
    """Actuated joints in policy order."""
    actuator_kind: str
    """'position' (servo-style position actuators) or 'motor' (torque: PD is applied in code)."""
    torso_body: str
    """Body whose height and tilt define a fall."""
    imu_site: str
    """Site the IMU sensors are attached to."""
    imu_body: str | None
    """Body an IMU site is added to when the MJCF has none."""
    feet: tuple[str, ...]
    """Foot body names, left first; their collision geoms are the soles."""
    default_base_qpos: tuple[float, ...]
    """Free-joint qpos (x, y, z, qw, qx, qy, qz) of the default pose, standing on z=0."""
    control_period: float
    """Seconds between policy actions."""
    timestep: float
    """Physics timestep, s."""
    scenes: Mapping[str, Path]
    """Scene files per terrain; a terrain without one gets a floor generated in code."""

    @property
    def joint_names(self) -> tuple[str, ...]:
        return tuple(j.name for j in self.joints)

    @property
    def servo_ids(self) -> tuple[int, ...]:
        return tuple(j.servo_id for j in self.joints)

    @property
    def default_pose(self) -> np.ndarray:
        return np.array([j.default for j in self.joints])

    @property
    def nu(self) -> int:
        return len(self.joints)

    @property
    def n_substeps(self) -> int:
        return int(round(self.control_period / self.timestep))

    def array(self, field: str) -> np.ndarray:
        """Per-joint values of one JointSpec field, in policy order."""
        return np.array([getattr(j, field) for j in self.joints], dtype=np.float64)


# --------------------------------------------------------------------------- discovery


def models_dir() -> Path:
    """Folder holding the built-in robots (one sub-folder each, with `<name>.toml`).

    `mjxwalk/_models` links to the repository's models/mjcf and is copied into wheels;
    $MJXWALK_MODELS points elsewhere.
    """
    override = os.environ.get("MJXWALK_MODELS")
    return Path(override) if override else Path(__file__).resolve().parent / "_models"


def list_robots() -> list[str]:
    """Names of the built-in robots."""
    root = models_dir()
    return sorted(p.name for p in root.iterdir() if (p / f"{p.name}.toml").is_file())


def load_robot(robot: str | os.PathLike | RobotSpec | None = None) -> RobotSpec:
    """A built-in robot by name (default 'kidbot'), or a spec file by path."""
    if isinstance(robot, RobotSpec):
        return robot
    if robot is None:
        robot = "kidbot"
    path = Path(robot)
    if path.suffix != ".toml" and not path.exists():
        builtin = models_dir() / str(robot) / f"{robot}.toml"
        if not builtin.is_file():
            names = ", ".join(list_robots())
            raise SpecError(None, f"unknown robot {str(robot)!r}; built-in robots: {names}; "
                            "or pass the path of a .toml spec file")
        path = builtin
    return _load_spec_file(path)


# --------------------------------------------------------------------------- parsing


def _suggest(name: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(name, choices, n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def _names(model: mujoco.MjModel, obj: mujoco.mjtObj, count: int) -> list[str]:
    return [mujoco.mj_id2name(model, obj, i) or "" for i in range(count)]


def _require(path: Path, table: Mapping[str, Any], key: str, kind: type | tuple) -> Any:
    if key not in table:
        raise SpecError(path, f"missing required key {key!r}")
    value = table[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        raise SpecError(path, f"{key!r} must be {_kind_name(kind)}, got {value!r}")
    return value


def _kind_name(kind: type | tuple) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join({str: "a string", int: "an integer", float: "a number",
                        list: "a list", dict: "a table"}.get(k, k.__name__) for k in kinds)


def _check_keys(path: Path, table: Mapping[str, Any], allowed, where: str) -> None:
    for key in table:
        if key not in allowed:
            raise SpecError(path, f"unknown key {key!r} in {where}{_suggest(key, list(allowed))}")


def _positive(path: Path, where: str, key: str, value: Any, allow_zero: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SpecError(path, f"{where}: {key} must be a number, got {value!r}")
    if value < 0 or (value == 0 and not allow_zero):
        raise SpecError(path, f"{where}: {key} must be {'>= 0' if allow_zero else '> 0'}, got {value}")
    return float(value)


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise SpecError(path, "spec file not found")
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise SpecError(path, f"not valid TOML: {e}") from None


def _load_mjcf_spec(path: Path, what: str, origin: Path) -> mujoco.MjSpec:
    if not path.is_file():
        raise SpecError(origin, f"{what} file not found: {path}")
    try:
        return mujoco.MjSpec.from_file(str(path))
    except Exception as e:  # MuJoCo raises ValueError with its parser's message
        raise SpecError(path, f"MuJoCo cannot load this {what}: {e}") from None


def _compile(spec: mujoco.MjSpec, path: Path) -> mujoco.MjModel:
    try:
        return spec.compile()
    except Exception as e:
        raise SpecError(path, f"MuJoCo cannot compile this model: {e}") from None


def _load_spec_file(path: Path) -> RobotSpec:
    path = Path(path).resolve()
    raw = _read_toml(path)
    _check_keys(path, raw, _TOP_KEYS, "the spec")
    name = _require(path, raw, "name", str)
    mjcf_path = (path.parent / _require(path, raw, "mjcf", str)).resolve()
    mjspec = _load_mjcf_spec(mjcf_path, "robot MJCF", path)
    imu_body = raw.get("imu_body")
    if "imu_site" in raw and imu_body is not None:
        raise SpecError(path, "give either imu_site or imu_body, not both")
    imu_site = raw.get("imu_site", "mjxwalk_imu")
    if "imu_site" not in raw and imu_body is None:
        raise SpecError(path, "missing required key 'imu_site' (or 'imu_body')")
    add_imu(mjspec, imu_site, imu_body, path)
    model = _compile(mjspec, mjcf_path)

    timestep = float(raw.get("timestep", model.opt.timestep))
    _positive(path, "spec", "timestep", timestep)
    control_period = _positive(path, "spec", "control_period", raw.get("control_period", 0.02))
    ratio = control_period / timestep
    if abs(ratio - round(ratio)) > 1e-6 or round(ratio) < 1:
        raise SpecError(path, f"control_period {control_period} s is not a whole multiple of the "
                        f"physics timestep {timestep} s; set 'timestep' in the spec to a divisor")

    joint_names = _names(model, mujoco.mjtObj.mjOBJ_JOINT, model.njnt)
    body_names = _names(model, mujoco.mjtObj.mjOBJ_BODY, model.nbody)
    site_names = _names(model, mujoco.mjtObj.mjOBJ_SITE, model.nsite)

    if model.njnt == 0 or model.jnt_type[0] != mujoco.mjtJoint.mjJNT_FREE or model.jnt_bodyid[0] != 1:
        raise SpecError(mjcf_path, "the first body must be the robot's root with a free joint "
                        "(a humanoid must be able to fall over)")
    torso = _require(path, raw, "torso_body", str)
    if torso not in body_names:
        raise SpecError(path, f"torso_body {torso!r} is not a body in {mjcf_path.name}"
                        f"{_suggest(torso, body_names)}")
    if imu_site not in site_names:
        raise SpecError(path, f"imu_site {imu_site!r} is not a site in {mjcf_path.name}"
                        f"{_suggest(imu_site, site_names)}")
    feet = _require(path, raw, "feet", list)
    if len(feet) != 2:
        raise SpecError(path, f"feet must name 2 foot bodies (left, right), got {len(feet)}")
    for foot in feet:
        if foot not in body_names:
            raise SpecError(path, f"foot body {foot!r} is not a body in {mjcf_path.name}"
                            f"{_suggest(str(foot), body_names)}")
        if len(foot_geoms(model, body_names.index(foot))) == 0:
            raise SpecError(path, f"foot body {foot!r} has no collision geom (a geom with "
                            "non-zero contype or conaffinity) to stand on")

    servo = raw.get("servo", {})
    if not isinstance(servo, dict):
        raise SpecError(path, "[servo] must be a table")
    _check_keys(path, servo, _SERVO_KEYS, "[servo]")
    action_scale = raw.get("action_scale", 0.3)
    _positive(path, "spec", "action_scale", action_scale)

    entries = _require(path, raw, "joints", list)
    if not entries:
        raise SpecError(path, "joints is empty")
    seen_names: set[str] = set()
    seen_ids: set[int] = set()
    parsed = []
    for i, entry in enumerate(entries):
        where = f"joints[{i}]"
        if not isinstance(entry, dict):
            raise SpecError(path, f"{where} must be a table like {{ name = ..., servo_id = ... }}")
        _check_keys(path, entry, _JOINT_KEYS, where)
        jname = entry.get("name")
        if not isinstance(jname, str):
            raise SpecError(path, f"{where} needs a string 'name'")
        where = f"joint {jname!r}"
        if jname not in joint_names:
            raise SpecError(path, f"{where} is not a joint in {mjcf_path.name}"
                            f"{_suggest(jname, joint_names)}")
        jid = joint_names.index(jname)
        if int(model.jnt_type[jid]) not in (int(mujoco.mjtJoint.mjJNT_HINGE), int(mujoco.mjtJoint.mjJNT_SLIDE)):
            raise SpecError(path, f"{where} must be a hinge or slide joint")
        if jname in seen_names:
            raise SpecError(path, f"{where} is listed twice")
        sid = entry.get("servo_id")
        if isinstance(sid, bool) or not isinstance(sid, int) or not 0 <= sid <= 252:
            raise SpecError(path, f"{where}: servo_id must be an integer 0..252, got {sid!r}")
        if sid in seen_ids:
            raise SpecError(path, f"{where}: servo_id {sid} is used twice")
        seen_names.add(jname)
        seen_ids.add(sid)
        values = {}
        for key in _SERVO_KEYS:
            if key not in entry and key not in servo:
                raise SpecError(path, f"{where}: no {key} (set it in [servo] or on the joint)")
            values[key] = _positive(path, where, key, entry.get(key, servo.get(key)),
                                    allow_zero=key == "kd")
        scale = _positive(path, where, "action_scale", entry.get("action_scale", action_scale))
        if not model.jnt_limited[jid]:
            raise SpecError(path, f"{where} has no range in {mjcf_path.name}; a servo joint needs limits")
        parsed.append((jname, jid, sid, values, scale))

    kind = _actuator_kind(model, [p[1] for p in parsed], joint_names, path, mjcf_path)
    default_joint, base = _default_pose(raw.get("default_pose"), model, [p[1] for p in parsed],
                                        feet, path, mjcf_path)
    joints = tuple(
        JointSpec(name=jname, servo_id=sid, action_scale=scale,
                  range=(float(model.jnt_range[jid, 0]), float(model.jnt_range[jid, 1])),
                  default=float(default_joint[k]), **values)
        for k, (jname, jid, sid, values, scale) in enumerate(parsed))
    for j in joints:
        if not j.range[0] <= j.default <= j.range[1]:
            raise SpecError(path, f"default pose of joint {j.name!r} ({j.default:.3f}) is outside "
                            f"its range {j.range}")

    scenes_raw = raw.get("scenes", {})
    if not isinstance(scenes_raw, dict):
        raise SpecError(path, "[scenes] must be a table")
    _check_keys(path, scenes_raw, TERRAINS, "[scenes]")
    scenes = {}
    for terrain, rel in scenes_raw.items():
        scene_path = (path.parent / str(rel)).resolve()
        if not scene_path.is_file():
            raise SpecError(path, f"scene file for {terrain!r} not found: {scene_path}")
        scenes[terrain] = scene_path

    return RobotSpec(name=name, spec_path=path, mjcf_path=mjcf_path, joints=joints,
                     actuator_kind=kind, torso_body=torso, imu_site=imu_site, imu_body=imu_body,
                     feet=tuple(feet), default_base_qpos=tuple(float(x) for x in base),
                     control_period=control_period, timestep=timestep, scenes=scenes)


def add_imu(mjspec: mujoco.MjSpec, site: str, body: str | None, path: Path) -> None:
    """Add an IMU site (if asked) and the gyro/accelerometer/orientation sensors it lacks."""
    if body is not None:
        target = mjspec.body(body)
        if target is None:
            names = [b.name for b in mjspec.bodies]
            raise SpecError(path, f"imu_body {body!r} is not a body{_suggest(body, names)}")
        if mjspec.site(site) is None:
            target.add_site(name=site)
    if mjspec.site(site) is None:
        return  # reported by the caller with a suggestion
    wanted = {
        mujoco.mjtSensor.mjSENS_GYRO: "gyro",
        mujoco.mjtSensor.mjSENS_ACCELEROMETER: "accelerometer",
        mujoco.mjtSensor.mjSENS_FRAMEQUAT: "orientation",
    }
    for sensor in mjspec.sensors:
        if sensor.objname == site:
            wanted.pop(sensor.type, None)
    for stype, label in wanted.items():
        mjspec.add_sensor(name=f"mjxwalk_imu_{label}", type=stype,
                          objtype=mujoco.mjtObj.mjOBJ_SITE, objname=site)


def _actuator_kind(model, jids, joint_names, path, mjcf_path) -> str:
    by_joint: dict[int, int] = {}
    for a in range(model.nu):
        if model.actuator_trntype[a] != mujoco.mjtTrn.mjTRN_JOINT:
            raise SpecError(mjcf_path, f"actuator {a} does not drive a joint; only joint "
                            "actuators are supported")
        jid = int(model.actuator_trnid[a, 0])
        if jid not in jids:
            raise SpecError(path, f"the MJCF actuates joint {joint_names[jid]!r}, which is not in "
                            "the spec's joints (list it, or remove its actuator)")
        if jid in by_joint:
            raise SpecError(mjcf_path, f"joint {joint_names[jid]!r} has two actuators")
        by_joint[jid] = a
    kinds = set()
    for jid in jids:
        if jid not in by_joint:
            raise SpecError(path, f"joint {joint_names[jid]!r} has no actuator in {mjcf_path.name}")
        a = by_joint[jid]
        kinds.add(_classify_actuator(model, a))
    if len(kinds) != 1 or None in kinds:
        raise SpecError(mjcf_path, "actuators must all be <position> (servo) or all <motor> "
                        f"(torque); found {sorted(str(k) for k in kinds)}")
    return kinds.pop()


def _classify_actuator(model, a) -> str | None:
    gain, bias = model.actuator_gaintype[a], model.actuator_biastype[a]
    if model.actuator_dyntype[a] != mujoco.mjtDyn.mjDYN_NONE:
        return None
    if gain == mujoco.mjtGain.mjGAIN_FIXED and bias == mujoco.mjtBias.mjBIAS_NONE:
        return "motor"
    if (gain == mujoco.mjtGain.mjGAIN_FIXED and bias == mujoco.mjtBias.mjBIAS_AFFINE
            and np.isclose(model.actuator_biasprm[a, 1], -model.actuator_gainprm[a, 0])):
        return "position"
    return None


def _default_pose(value, model, jids, feet, path, mjcf_path):
    """Joint angles and base qpos of the default pose."""
    qpos = model.qpos0.copy()
    if isinstance(value, str):
        key = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_KEY, value)
        if key < 0:
            keys = _names(model, mujoco.mjtObj.mjOBJ_KEY, model.nkey)
            raise SpecError(path, f"default_pose: keyframe {value!r} not found in {mjcf_path.name}"
                            f"{_suggest(value, keys)}")
        qpos = model.key_qpos[key].copy()
    elif isinstance(value, dict):
        names = _names(model, mujoco.mjtObj.mjOBJ_JOINT, model.njnt)
        for jname, angle in value.items():
            if jname not in names:
                raise SpecError(path, f"default_pose: {jname!r} is not a joint{_suggest(jname, names)}")
            if isinstance(angle, bool) or not isinstance(angle, (int, float)):
                raise SpecError(path, f"default_pose: angle of {jname!r} must be a number")
            qpos[model.jnt_qposadr[names.index(jname)]] = float(angle)
        qpos[2] = _standing_height(model, qpos, feet)
    elif value is None:
        qpos[2] = _standing_height(model, qpos, feet)
    else:
        raise SpecError(path, "default_pose must be a keyframe name or a table joint -> angle")
    joint_angles = np.array([qpos[model.jnt_qposadr[j]] for j in jids])
    return joint_angles, qpos[:7]


def foot_geoms(model: mujoco.MjModel, body: int) -> np.ndarray:
    """Collision geoms of a foot body (the ones that can touch the ground)."""
    collides = (model.geom_contype != 0) | (model.geom_conaffinity != 0)
    return np.flatnonzero((model.geom_bodyid == body) & collides)


def _standing_height(model, qpos, feet) -> float:
    """Root height that puts the lowest sole point on z = 0."""
    data = mujoco.MjData(model)
    data.qpos[:] = qpos
    data.qpos[2] = 0.0
    mujoco.mj_kinematics(model, data)
    lowest = math.inf
    geoms = [g for foot in feet
             for g in foot_geoms(model, mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, foot))]
    for g in geoms:
        center, half = model.geom_aabb[g, :3], model.geom_aabb[g, 3:]
        rot = data.geom_xmat[g].reshape(3, 3)
        z = data.geom_xpos[g, 2] + rot[2] @ center - np.abs(rot[2]) @ half
        lowest = min(lowest, float(z))
    return -lowest
