"""The learning-curve report and the metrics file it reads."""

import json

import pytest

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


def test_discount_changes_are_found_and_drawn(tmp_path):
    rows = [{"env_steps": 1000, "env/reward": 1.0},  # logged before the discount was
            {"env_steps": 2000, "env/reward": 1.1, "train/discounting": 0.97},
            {"env_steps": 3000, "env/reward": 1.2, "train/discounting": 0.97},
            {"env_steps": 4000, "env/reward": 1.0, "train/discounting": 0.99},
            {"env_steps": 5000, "env/reward": 1.1, "train/discounting": 0.99}]
    assert monitor.discount_changes(rows) == [(4000, 0.97, 0.99)]
    assert monitor.discount_changes(rows[:3]) == []
    _write_rows(tmp_path, rows)
    assert monitor.plot_learning_curve(tmp_path, "switched").stat().st_size > 1000


def test_a_resume_sets_aside_rows_logged_after_its_checkpoint(tmp_path):
    # killed at 5000 steps with its last checkpoint at 3000: the resume trains 4000 and 5000
    # again, so their first rows move aside instead of being logged twice
    _write_rows(tmp_path, [{"env_steps": s, "env/reward": 1.0} for s in range(1000, 6000, 1000)])
    mon = monitor.Monitor(tmp_path, total_steps=6000, control_dt=0.02, show=False,
                          start_steps=3000)
    mon.record(4000, {"env/reward": 2.0})
    mon.close()
    assert [(r["env_steps"], r["env/reward"]) for r in monitor.read_metrics(tmp_path)] == [
        (1000, 1.0), (2000, 1.0), (3000, 1.0), (4000, 2.0)]
    discarded = [json.loads(l) for l in (tmp_path / monitor.DISCARDED).read_text().splitlines()]
    assert [r["env_steps"] for r in discarded] == [4000, 5000]
    # a resume from the last row sets nothing aside
    assert monitor.set_aside_rows_after(tmp_path, 4000) == 0


def test_a_torn_last_line_is_skipped_with_a_warning_and_set_aside_on_resume(tmp_path):
    # a kill in the middle of writing a row leaves half of it
    (tmp_path / "metrics.jsonl").write_text('{"env_steps": 1000}\n{"env_steps": 2000}\n{"env_st')
    with pytest.warns(UserWarning, match="skipped 1 line"):
        assert [r["env_steps"] for r in monitor.read_metrics(tmp_path)] == [1000, 2000]
    assert monitor.set_aside_rows_after(tmp_path, 2000) == 1
    assert (tmp_path / "metrics.jsonl").read_text() == '{"env_steps": 1000}\n{"env_steps": 2000}\n'
    assert (tmp_path / monitor.DISCARDED).read_text() == '{"env_st\n'


def test_curve_points_keep_the_first_row_past_each_mark_and_the_last():
    rows = [{"env_steps": s} for s in (400, 900, 1000, 1100, 2600, 2700)]
    assert [r["env_steps"] for r in monitor.curve_points(rows, 1000)] == [1000, 2600, 2700]
    # a last row on a mark is kept once
    assert [r["env_steps"] for r in monitor.curve_points(rows[:3], 500)] == [900, 1000]
    assert monitor.curve_points([], 1000) == []


@pytest.mark.parametrize("every", [0, -500])
def test_curve_points_refuse_an_interval_that_is_not_positive(every):
    with pytest.raises(ValueError, match="every must be a positive"):
        monitor.curve_points([{"env_steps": 100}], every)
