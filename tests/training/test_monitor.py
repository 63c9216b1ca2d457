"""The learning-curve report and the metrics file it reads."""

import json

from mjxwalk.training import monitor


def _write_rows(run_dir, rows):
    (run_dir / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_report_of_a_single_iteration_is_drawn(tmp_path):
    # a --minutes budget smaller than the compile time ends after one iteration: the run
    # still gets its learning curve, one point per panel
    _write_rows(tmp_path, [{"env_steps": 1024, "env/reward": 2.4, "env/falls": 0.001,
                            "env/lin_vel_error": 0.29}])
    path = monitor.plot_learning_curve(tmp_path, "one iteration")
    assert path == tmp_path / "report.png"
    assert path.stat().st_size > 1000


def test_no_report_without_metrics(tmp_path):
    assert monitor.plot_learning_curve(tmp_path, "nothing") is None
    assert not (tmp_path / "report.png").exists()


def test_read_metrics_skips_blank_lines(tmp_path):
    (tmp_path / "metrics.jsonl").write_text('{"env_steps": 1}\n\n{"env_steps": 2}\n')
    assert [r["env_steps"] for r in monitor.read_metrics(tmp_path)] == [1, 2]
