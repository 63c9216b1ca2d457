"""Offscreen pictures of a robot with MuJoCo's renderer (host side, MuJoCo C)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

import mujoco
import numpy as np


class RenderUnavailable(RuntimeError):
    """No OpenGL context could be made (no EGL/OSMesa on this machine)."""


def render_qpos(model: mujoco.MjModel, qpos_frames: Iterable[np.ndarray], *, width: int = 640,
                height: int = 480, track_body: int = 1, distance: float = 1.3,
                azimuth: float = 135.0, elevation: float = -15.0) -> list[np.ndarray]:
    """RGB images (height, width, 3) of `model` at each qpos, camera following `track_body`."""
    os.environ.setdefault("MUJOCO_GL", "egl")
    model.vis.global_.offwidth = max(model.vis.global_.offwidth, width)
    model.vis.global_.offheight = max(model.vis.global_.offheight, height)
    try:
        renderer = mujoco.Renderer(model, height, width)
    except Exception as e:  # missing GL libraries surface as many different errors
        raise RenderUnavailable(f"offscreen rendering unavailable ({e}); install EGL or OSMesa "
                                "(Debian: libegl1 or libosmesa6) and set MUJOCO_GL") from None
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
