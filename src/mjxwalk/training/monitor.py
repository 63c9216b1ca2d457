"""What people watch during training: a progress line, JSONL and TensorBoard metrics, and a
learning-curve PNG at the end."""

from __future__ import annotations

import json
import math
import time
import warnings
from pathlib import Path
from typing import Any


def human_duration(seconds: float) -> str:
    """Simulated experience in the largest sensible unit (s, min, h, days, years)."""
    for unit, size in (("years", 365 * 86400), ("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.0f} s"


class Monitor:
    """Metrics sinks plus a live progress bar (rich) with ETA and simulated time per hour."""

    def __init__(self, run_dir: Path, total_steps: int, control_dt: float, show: bool = True,
                 start_steps: int = 0, start_wall_s: float = 0.0):
        from tensorboardX import SummaryWriter

        self.run_dir = Path(run_dir)
        if start_steps:
            set_aside_rows_after(self.run_dir, start_steps)
        self.jsonl = (self.run_dir / "metrics.jsonl").open("a")
        self.tb = SummaryWriter(str(self.run_dir))
        self.total = total_steps
        self.dt = control_dt
        self.start_steps = start_steps
        self.start_wall_s = start_wall_s  # trained before a resume: the wall_s axis continues
        self.started = time.perf_counter()
        self._last = (self.started, start_steps)
        self.progress = None
        if show:
            from rich.progress import (BarColumn, Progress, TextColumn, TimeElapsedColumn,
                                       TimeRemainingColumn)

            self.progress = Progress(TextColumn("[bold]train"), BarColumn(),
                                     TextColumn("{task.percentage:>5.1f}%"), TimeElapsedColumn(),
                                     TextColumn("ETA"), TimeRemainingColumn(),
                                     TextColumn("{task.fields[status]}"))
            self.task = self.progress.add_task("train", total=total_steps, completed=start_steps,
                                               status="compiling...")
            self.progress.start()

    def record(self, steps: int, metrics: dict[str, float], compile_s: float | None = None) -> dict:
        now = time.perf_counter()
        wall = self.start_wall_s + now - self.started
        # rate over the last interval: the first one includes compilation
        last_time, last_steps = self._last
        rate = (steps - last_steps) / (now - last_time) if now > last_time else 0.0
        self._last = (now, steps)
        sim_per_hour = rate * self.dt * 3600
        row = {"env_steps": steps, "wall_s": round(wall, 2), "env_steps_per_s": round(rate, 1),
               "sim_s_per_wall_s": round(rate * self.dt, 2),
               **{k: float(v) for k, v in metrics.items()}}
        if compile_s is not None:
            row["compile_s"] = round(compile_s, 2)
        self.jsonl.write(json.dumps(row) + "\n")
        self.jsonl.flush()
        for k, v in row.items():
            if isinstance(v, float) and math.isfinite(v):
                self.tb.add_scalar(k, v, steps)
        self.tb.flush()
        if self.progress is not None:
            status = (f"{rate:,.0f} steps/s | {human_duration(sim_per_hour)} sim/h | "
                      f"reward {metrics.get('env/reward', float('nan')):.3f}")
            self.progress.update(self.task, completed=min(steps, self.total), status=status)
        return row

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()
        self.jsonl.close()
        self.tb.close()


def _parse_lines(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """metrics.jsonl's rows, and the lines that are not JSON: a kill mid-write tears the
    last one."""
    rows, torn = [], []
    for line in path.read_text().splitlines() if path.exists() else ():
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                torn.append(line)
    return rows, torn


def read_metrics(run_dir: Path) -> list[dict[str, Any]]:
    """The rows of a run's metrics.jsonl, skipping (with a warning) lines that are not JSON."""
    path = Path(run_dir) / "metrics.jsonl"
    rows, torn = _parse_lines(path)
    if torn:
        warnings.warn(f"{path}: skipped {len(torn)} line(s) that are not JSON, "
                      f"the first: {torn[0][:80]!r}", stacklevel=2)
    return rows


DISCARDED = "metrics.discarded.jsonl"
"""Where a resume moves the rows its run logged after the checkpoint it resumes from."""


def set_aside_rows_after(run_dir: Path, steps: int) -> int:
    """Move the rows of metrics.jsonl past `steps`, and any torn line, to `DISCARDED` and
    return how many. A run killed between checkpoints logged iterations that its resume
    trains again; left in place, they would be logged twice and the learning curve would
    double back."""
    path = Path(run_dir) / "metrics.jsonl"
    rows, torn = _parse_lines(path)
    later = [json.dumps(r) for r in rows if r["env_steps"] > steps] + torn
    if later:
        with (Path(run_dir) / DISCARDED).open("a") as f:
            f.writelines(line + "\n" for line in later)
        tmp = path.with_suffix(".jsonl.tmp")
        tmp.write_text("".join(json.dumps(r) + "\n" for r in rows if r["env_steps"] <= steps))
        tmp.replace(path)  # atomic: a kill now leaves either file whole
    return len(later)


def discount_changes(rows: list[dict[str, Any]]) -> list[tuple[int, float, float]]:
    """(env steps, discount before, after) wherever the logged `train/discounting` changes:
    a schedule's switch, or a resume with another `--discounting`. Rows from before the
    discount was logged are skipped."""
    changes, last = [], None
    for row in rows:
        value = row.get("train/discounting")
        if value is None:
            continue
        if last is not None and not math.isclose(value, last, rel_tol=1e-6):
            changes.append((row["env_steps"], last, value))
        last = value
    return changes


def curve_points(rows: list[dict[str, Any]], every: int) -> list[dict[str, Any]]:
    """A learning curve thinned for filing: the first row at or past each multiple of
    `every` env steps, and the last row."""
    if every <= 0:
        raise ValueError(f"curve_points: every must be a positive number of env steps, got {every}")
    points, mark = [], every
    for row in rows:
        if row["env_steps"] >= mark:
            points.append(row)
            mark = (row["env_steps"] // every + 1) * every
    if rows and (not points or points[-1] is not rows[-1]):
        points.append(rows[-1])
    return points


def plot_learning_curve(run_dir: Path, title: str) -> Path | None:
    """report.png: reward per step, falls and tracking error against env steps, with a dashed
    line where the discount changed, since reward and falls move there (None when no
    iteration finished)."""
    rows = read_metrics(run_dir)
    if not rows:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [r["env_steps"] for r in rows]
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.6))
    panels = (("env/reward", "reward per step"), ("env/falls", "falls per step"),
              ("env/lin_vel_error", "velocity tracking error (m/s)"))
    changes = discount_changes(rows)
    for ax, (key, label) in zip(axes, panels):
        # a run stopped after one iteration still gets its point drawn
        ax.plot(steps, [r.get(key, float("nan")) for r in rows], marker="o" if len(rows) == 1 else None)
        for at, before, after in changes:
            ax.axvline(at, color="grey", linestyle="--", linewidth=1,
                       label=f"discount {before:.3g} to {after:.3g}")
        if ax is axes[0] and ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
        ax.set_xlabel("env steps")
        ax.set_title(label, fontsize=10)
        ax.grid(alpha=0.3)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    path = Path(run_dir) / "report.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
