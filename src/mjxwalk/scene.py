"""A robot placed in a scene: the compiled `mujoco.MjModel` the simulation runs, and its ids.

Host side only. One mechanism for every robot: the scene file named in the spec is used
when there is one, otherwise a floor is added in code. Servo gains and limits are written
from the spec into the actuators, and contacts are pruned to those that matter, because
MJX pays for every geom pair it might have to collide.
"""

from __future__ import annotations

import dataclasses

import mujoco
import numpy as np

from mjxwalk import terrain as terrain_lib
from mjxwalk.config import TerrainLayout
from mjxwalk.errors import SpecError
from mjxwalk.robot import TERRAINS, RobotSpec, add_imu, foot_geoms

FLOOR = "floor"
"""Name of the ground geom in every scene."""
HFIELD = "terrain"
"""Name of the heightfield asset of the rough scene."""

_FLOOR_BIT = 1  # conaffinity bit the floor answers to
_ROBOT_BIT = 2  # contype bit of robot geoms that may touch the floor


@dataclasses.dataclass(frozen=True)
class RobotIndex:
    """Ids and addresses of the robot's parts in one compiled model, policy order."""

    qpos_adr: np.ndarray
    """qpos address of each actuated joint."""
    dof_adr: np.ndarray
    """qvel address of each actuated joint."""
    actuator: np.ndarray
    """Actuator id driving each joint."""
    torso_body: int
    """Body id of the torso."""
    imu_site: int
    """Site id of the IMU."""
    feet: np.ndarray
    """Body ids of the feet, left first."""
    foot_geoms: tuple[np.ndarray, ...]
    """Per foot, the ids of its collision geoms (the soles)."""
    floor: int
    """Geom id of the ground."""
    gyro_adr: int
    """sensordata address of the gyro (3 values, IMU frame, rad/s)."""
    accelerometer_adr: int
    """sensordata address of the accelerometer (3 values, IMU frame, m/s²)."""
    orientation_adr: int
    """sensordata address of the IMU orientation quaternion (w, x, y, z), world frame."""
    hfield: int
    """Heightfield id of the terrain, or -1 on flat ground."""


def build_model(robot: RobotSpec, terrain: str = "flat", *, floor_contacts: str = "feet",
                layout: TerrainLayout = TerrainLayout()) -> mujoco.MjModel:
    """Compile `robot` in a `terrain` scene, with servo parameters taken from its spec.

    floor_contacts: 'feet' (only the soles touch the ground: fastest, enough for walking) or
    'all' (every geom the MJCF lets collide touches the ground, for get-up tasks).
    The rough scene's heightfield named 'terrain' is sized and filled here from `layout`.
    """
    if terrain not in TERRAINS:
        raise SpecError(None, f"unknown terrain {terrain!r}; choose one of {TERRAINS}")
    if floor_contacts not in ("feet", "all"):
        raise SpecError(None, f"floor_contacts must be 'feet' or 'all', got {floor_contacts!r}")
    scene_path = robot.scenes.get(terrain)
    if scene_path is not None:
        try:
            mjspec = mujoco.MjSpec.from_file(str(scene_path))
        except Exception as e:
            raise SpecError(scene_path, f"MuJoCo cannot load this scene: {e}") from None
    else:
        mjspec = mujoco.MjSpec.from_file(str(robot.mjcf_path))
        _add_ground(mjspec, terrain)
        scene_path = robot.mjcf_path
    add_imu(mjspec, robot.imu_site, robot.imu_body, robot.spec_path)
    mjspec.option.timestep = robot.timestep
    if terrain == "rough":
        hfield = mjspec.hfield(HFIELD)
        if hfield is None:
            raise SpecError(scene_path, f"the rough scene needs an hfield named {HFIELD!r}")
        heights = terrain_lib.tiles(layout.levels, layout.columns, layout.tile_size, layout.cell,
                                    seed=layout.seed)
        top = max(float(heights.max()), 1e-3)
        hfield.nrow, hfield.ncol = heights.shape
        hfield.size = [heights.shape[1] * layout.cell / 2, heights.shape[0] * layout.cell / 2,
                       top, 0.1]
        hfield.userdata = (heights / top).ravel().tolist()
    try:
        model = mjspec.compile()
    except Exception as e:
        raise SpecError(scene_path, f"MuJoCo cannot compile this scene: {e}") from None
    if mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_GEOM, FLOOR) < 0:
        raise SpecError(scene_path, f"the scene has no ground geom named {FLOOR!r}")
    index = robot_index(robot, model)
    _apply_servos(robot, model, index)
    _prune_contacts(model, index, floor_contacts)
    return model


def _add_ground(mjspec: mujoco.MjSpec, terrain: str) -> None:
    """A floor for a robot MJCF that comes without a scene (replacing its own, if any)."""
    old = mjspec.geom(FLOOR)
    if old is not None:
        mjspec.delete(old)
    if terrain == "flat":
        mjspec.worldbody.add_geom(name=FLOOR, type=mujoco.mjtGeom.mjGEOM_PLANE,
                                  size=[0, 0, 0.05], rgba=[0.55, 0.6, 0.65, 1])
    else:
        # sized and filled by build_model
        mjspec.add_hfield(name=HFIELD, nrow=2, ncol=2, size=[1, 1, 0.05, 0.1], userdata=[0.0] * 4)
        mjspec.worldbody.add_geom(name=FLOOR, type=mujoco.mjtGeom.mjGEOM_HFIELD, hfieldname=HFIELD,
                                  rgba=[0.55, 0.6, 0.65, 1])
    mjspec.worldbody.add_light(pos=[0, 0, 3], dir=[0, 0, -1], type=mujoco.mjtLightType.mjLIGHT_DIRECTIONAL)


def robot_index(robot: RobotSpec, model: mujoco.MjModel) -> RobotIndex:
    """Resolve the spec's names in `model` (names were validated when the spec loaded)."""

    def ident(obj, name):
        i = mujoco.mj_name2id(model, obj, name)
        if i < 0:
            raise SpecError(robot.spec_path, f"{name!r} not found in the compiled scene")
        return i

    jids = [ident(mujoco.mjtObj.mjOBJ_JOINT, n) for n in robot.joint_names]
    feet = [ident(mujoco.mjtObj.mjOBJ_BODY, f) for f in robot.feet]
    actuator_of = {int(model.actuator_trnid[a, 0]): a for a in range(model.nu)}
    site = ident(mujoco.mjtObj.mjOBJ_SITE, robot.imu_site)

    def sensor_adr(stype):
        for s in range(model.nsensor):
            if model.sensor_type[s] == stype and model.sensor_objid[s] == site and \
                    model.sensor_objtype[s] == mujoco.mjtObj.mjOBJ_SITE:
                return int(model.sensor_adr[s])
        raise SpecError(robot.spec_path, f"no {stype.name} sensor on site {robot.imu_site!r}")

    return RobotIndex(
        qpos_adr=np.array([model.jnt_qposadr[j] for j in jids]),
        dof_adr=np.array([model.jnt_dofadr[j] for j in jids]),
        actuator=np.array([actuator_of[j] for j in jids]),
        torso_body=ident(mujoco.mjtObj.mjOBJ_BODY, robot.torso_body),
        imu_site=site,
        feet=np.array(feet),
        foot_geoms=tuple(foot_geoms(model, f) for f in feet),
        floor=ident(mujoco.mjtObj.mjOBJ_GEOM, FLOOR),
        gyro_adr=sensor_adr(mujoco.mjtSensor.mjSENS_GYRO),
        accelerometer_adr=sensor_adr(mujoco.mjtSensor.mjSENS_ACCELEROMETER),
        orientation_adr=sensor_adr(mujoco.mjtSensor.mjSENS_FRAMEQUAT),
        hfield=mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_HFIELD, HFIELD),
    )


def _apply_servos(robot: RobotSpec, model: mujoco.MjModel, index: RobotIndex) -> None:
    """Write the spec's gains and limits into the actuators (the spec is the one source)."""
    kp, kd = robot.array("kp"), robot.array("kd")
    torque = robot.array("torque_limit")
    lo, hi = robot.array("range").T
    for k, a in enumerate(index.actuator):
        gear = model.actuator_gear[a, 0]
        model.actuator_forcelimited[a] = 1
        model.actuator_forcerange[a] = (-torque[k], torque[k])
        model.actuator_ctrllimited[a] = 1
        # The servo gains live in biasprm for both kinds (sim.py reads them from there, so
        # randomizing the model randomizes the gains). A motor's biastype is 'none', so
        # MuJoCo ignores them; a position actuator uses them as its own PD.
        model.actuator_biasprm[a, :3] = (0.0, -kp[k], -kd[k])
        if robot.actuator_kind == "position":
            model.actuator_gainprm[a, 0] = kp[k]
            model.actuator_ctrlrange[a] = (lo[k], hi[k])
        else:  # motor: ctrl is torque / gear, from the servo model in sim.py
            model.actuator_forcerange[a] = (-torque[k] / gear, torque[k] / gear)
            model.actuator_ctrlrange[a] = (-torque[k] / gear, torque[k] / gear)


def _prune_contacts(model: mujoco.MjModel, index: RobotIndex, floor_contacts: str) -> None:
    """Only robot-floor contacts survive: no self-collision, only the feet unless 'all'."""
    collides = (model.geom_contype | model.geom_conaffinity) != 0
    model.geom_contype[:] = 0
    model.geom_conaffinity[:] = 0
    if floor_contacts == "all":
        robot_geoms = np.flatnonzero(collides & (model.geom_bodyid > 0))
    else:
        robot_geoms = np.concatenate(index.foot_geoms)
    model.geom_contype[robot_geoms] = _ROBOT_BIT
    model.geom_conaffinity[index.floor] = _ROBOT_BIT
    model.geom_contype[index.floor] = _FLOOR_BIT
