"""Offscreen rendering without a display. MuJoCo chooses its OpenGL backend once per process,
when it is first imported, so each case runs in a fresh interpreter."""

import ctypes.util
import json
import os
import subprocess
import sys

import pytest

DRAW_KIDBOT = """
import json, sys
from mjxwalk import render  # first, as the demo and render_walk.py import it
import mujoco, numpy as np
import mjxwalk
from mjxwalk.scene import build_model
model = build_model(mjxwalk.load_robot("kidbot"))
try:
    image = render.render_qpos(model, [model.qpos0], width=160, height=120)[0]
except render.RenderUnavailable as e:
    print(json.dumps({"error": str(e)})); sys.exit(0)
print(json.dumps({"backend": mujoco.GLContext.__module__, "shape": list(image.shape),
                  "colours": len(np.unique(image.reshape(-1, 3), axis=0))}))
"""


def _run(env_changes: dict) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "MUJOCO_GL", "PYOPENGL_PLATFORM")}
    env.update(env_changes)
    out = subprocess.run([sys.executable, "-c", DRAW_KIDBOT], env=env, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not sys.platform.startswith("linux") or ctypes.util.find_library("EGL") is None,
                    reason="needs libEGL (Linux)")
def test_headless_render_uses_egl_and_draws_the_robot():
    """With no display and MUJOCO_GL unset (a server, CI), the picture must come out: MuJoCo's
    default GLFW backend cannot make a context there, which cost the README its GIF once."""
    result = _run({})
    assert "error" not in result, result["error"]
    assert result["backend"] == "mujoco.egl"
    assert result["shape"] == [120, 160, 3]
    # a failed context draws one flat colour; floor, sky and robot shading give hundreds
    assert result["colours"] > 50, result


def test_unusable_backend_says_which_and_what_to_set():
    """A backend chosen by the user that cannot work headless is reported by name, with the
    variable that changes it, not as GLFW's own 'no platform library' error."""
    result = _run({"MUJOCO_GL": "glfw"})
    assert "error" in result, result
    assert "mujoco.glfw" in result["error"] and "MUJOCO_GL=egl" in result["error"]
