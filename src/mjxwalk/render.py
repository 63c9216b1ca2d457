"""Offscreen pictures of a robot with MuJoCo's renderer (host side, MuJoCo C)."""

from __future__ import annotations

import ctypes.util
import os
import sys
from pathlib import Path
from typing import Iterable

# MuJoCo picks its OpenGL backend once, when it is first imported, from MUJOCO_GL; unset, it
# is GLFW, which needs a display. Headless, EGL (Mesa's software rasterizer will do) is the
# one that works, so it must be the default before mujoco is imported (where libEGL exists:
# elsewhere MuJoCo keeps its own default and render_qpos says what is missing).
if (sys.platform.startswith("linux") and not os.environ.get("DISPLAY")
        and ctypes.util.find_library("EGL")):
    os.environ.setdefault("MUJOCO_GL", "egl")

import mujoco  # noqa: E402
import numpy as np  # noqa: E402


class RenderUnavailable(RuntimeError):
    """No OpenGL context could be made (no EGL/OSMesa on this machine)."""


def render_qpos(model: mujoco.MjModel, qpos_frames: Iterable[np.ndarray], *, width: int = 640,
                height: int = 480, track_body: int = 1, distance: float = 1.3,
                azimuth: float = 135.0, elevation: float = -15.0) -> list[np.ndarray]:
    """RGB images (height, width, 3) of `model` at each qpos, camera following `track_body`."""
    model.vis.global_.offwidth = max(model.vis.global_.offwidth, width)
    model.vis.global_.offheight = max(model.vis.global_.offheight, height)
    try:
        renderer = mujoco.Renderer(model, height, width)
    except Exception as e:  # missing GL libraries surface as many different errors
        backend = getattr(getattr(mujoco, "GLContext", None), "__module__", "none")
        raise RenderUnavailable(
            f"offscreen rendering unavailable with MuJoCo's {backend} backend ({e}); without a "
            "display, install EGL or OSMesa (Debian: libegl1 or libosmesa6) and set "
            "MUJOCO_GL=egl or osmesa before mujoco is first imported (importing mjxwalk.render "
            "first does it)") from None
    data = mujoco.MjData(model)
    camera = mujoco.MjvCamera()
    camera.distance, camera.azimuth, camera.elevation = distance, azimuth, elevation
    images = []
    with renderer:
        for qpos in qpos_frames:
            data.qpos[:] = qpos
            mujoco.mj_forward(model, data)
            camera.lookat[:] = data.xpos[track_body] - np.array([0.0, 0.0, 0.1])
            renderer.update_scene(data, camera)
            images.append(renderer.render().copy())
    return images


def save_png(image: np.ndarray, path: str | Path) -> Path:
    from PIL import Image

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(image).save(path)
    return path


def save_gif(images: list[np.ndarray], path: str | Path, fps: float = 25.0) -> Path:
    from PIL import Image

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    frames = [Image.fromarray(i) for i in images]
    frames[0].save(path, save_all=True, append_images=frames[1:], loop=0,
                   duration=int(1000 / fps), optimize=True)
    return path
