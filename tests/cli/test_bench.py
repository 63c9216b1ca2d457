"""mjxwalk-bench end to end on a tiny sweep: what it files is what the benchmark plots read."""

import json

import pytest

from mjxwalk.cli import bench


def test_bench_files_env_physics_and_mujoco_c_rows_with_versions_and_a_plot(tmp_path):
    out = tmp_path / "bench" / "env.json"
    assert bench.main(["--batch", "2", "--steps", "2", "--repeats", "1", "--out", str(out)]) == 0
    report = json.loads(out.read_text())
    assert {r["what"] for r in report["results"]} == {"env_step", "mjx_step", "mujoco_c"}
    for row in report["results"]:
        assert row["batch"] == 2 and row["physics_steps_per_s"] > 0
        # env steps are physics steps over the robot's substeps, simulated time their timestep
        assert row["env_steps_per_s"] * row["substeps"] == pytest.approx(row["physics_steps_per_s"])
    assert report["config"]["batches"] == [2] and report["command"].startswith("mjxwalk-bench")
    assert "jax" in report["versions"] and "mujoco" in report["versions"]
    # the env does more than raw physics, so its overhead is filed per batch
    [(key, extra)] = report["overhead"].items()
    assert key.endswith("batch=2") and extra > -1
    assert out.with_suffix(".png").stat().st_size > 0
