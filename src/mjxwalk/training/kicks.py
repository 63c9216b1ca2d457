"""Which kicks knock a policy over: the kicks of `benchmarks/push_recovery.py` broken down
by size, by direction against the heading, by which feet were on the ground and by how long
the gait clock had left until its next touch-down.

A kick is one row of `KICK_COLUMNS`. The breakdowns are pure numpy, so they summarize a
filed list as well as a fresh rollout.
"""

from __future__ import annotations

import numpy as np

KICK_COLUMNS = ("episode", "control_step", "size_m_s", "angle_deg", "fell", "kick_left",
                "support", "clock_touchdown_s", "first_step_s", "catch_miss_m", "clock_hz",
                "clock_shift_rad")
"""The columns of each kick: its episode and control step (which pair it across runs), size
(m/s), angle between the kick and the torso's heading (degrees, 0-180: 0 pushes the robot
forward, 180 backward), whether it ended in a fall, whether it points to the robot's left,
which feet were on the ground (`SUPPORTS`), the seconds until the gait clock's next
touch-down (on the clock the policy sees, at the config's `gait_frequency`, so the bins of
`summarize` mean the same for a clock the policy moves), the seconds until a foot did touch
down, how far that foot landed from where it would have caught the body
(`mjxwalk.envs.walk.catch_targets`, m), and the gait clock's mean frequency over the
`CLOCK_AFTER_S` after the kick (Hz; it moves only for a policy given its clock,
`WalkConfig.gait_frequency_span`) and the mean shift the policy put on the clock's angle
over the same time (rad, > 0 brings the next touch-down sooner; only with
`WalkConfig.gait_phase_offset_span`). `first_step_s` and `catch_miss_m` are None when
no foot touched down before the fall window ended."""

CLOCK_AFTER_S = 0.3
"""Seconds after a kick over which `clock_hz` and `clock_shift_rad` average: about the half
cycle in which a clock the policy can move would bring the next step sooner."""

PAIRING_COLUMNS = ("episode", "control_step", "fell")
"""What two kick lists need to be paired kick by kick (files written before the later
columns were added have only the first five)."""

SUPPORTS = ("left", "right", "both", "none")
"""Feet on the ground when the kick lands: only the left, only the right, both, neither."""

SIZE_BINS = ((0.0, 0.2), (0.2, 0.3), (0.3, 0.4), (0.4, 0.6))
"""Kick sizes, m/s (the walk report's kicks are 0.1-0.5)."""

DIRECTIONS = {"pushed_forward": (0.0, 45.0), "pushed_sideways": (45.0, 135.0),
              "pushed_backward": (135.0, 180.1)}
"""Angle between the kick and the torso's heading, degrees. Files written before 2026-12-05
call these front, side and back: the direction the kick points, so "front" is a shove from
behind."""


BIG_KICK = 0.3
"""m/s: the kicks from which on a walking policy falls often enough to break down further."""


def first_touchdown(contact, start: int, stop: int) -> tuple[int, int] | None:
    """(control step, foot) of the first touch-down in steps start..stop-1 of a (steps,
    n_feet) contact record: a foot on the ground that was not at the step before. Of feet
    landing together, the lowest index."""
    contact = np.asarray(contact, bool)
    for t in range(max(start, 1), min(stop, len(contact))):
        landed = np.flatnonzero(contact[t] & ~contact[t - 1])
        if landed.size:
            return t, int(landed[0])
    return None


def support(contact) -> str:
    """`SUPPORTS` name of a (left, right) foot-contact pair."""
    left, right = bool(contact[0]), bool(contact[1])
    return {(True, False): "left", (False, True): "right", (True, True): "both",
            (False, False): "none"}[(left, right)]


def clock_touchdown_s(phase: float, frequency: float) -> float:
    """Seconds until the gait clock sets a swinging foot down. The left foot swings while
    sin(phase) > 0 and lands at phase pi, the right lands at 2 pi (`mjxwalk.rewards.feet_phase`),
    so a touch-down comes every half cycle."""
    if frequency <= 0:
        raise ValueError(f"gait frequency must be > 0, got {frequency}")
    return float((np.pi - np.mod(phase, np.pi)) / (2 * np.pi * frequency))


def _share(fell: np.ndarray, mask: np.ndarray) -> dict:
    return {"pushes": int(mask.sum()), "fall_share": float(fell[mask].mean()) if mask.any() else None}


def _first_steps(seconds: np.ndarray, miss: np.ndarray, clock_hz: np.ndarray,
                 clock_shift: np.ndarray, mask: np.ndarray) -> dict:
    stepped = mask & np.isfinite(seconds)

    def median(x, where):
        return float(np.median(x[where])) if where.any() else None

    return {"pushes": int(mask.sum()), "stepped": int(stepped.sum()),
            "median_first_step_s": median(seconds, stepped),
            "median_catch_miss_m": median(miss, stepped),
            "median_clock_hz": median(clock_hz, mask & np.isfinite(clock_hz)),
            "median_clock_shift_rad": median(clock_shift, mask & np.isfinite(clock_shift))}


def summarize(rows, gait_frequency: float) -> dict:
    """Fall shares of a scenario's kicks (rows of `KICK_COLUMNS`): all, by size, by direction
    (of all kicks and of those of `BIG_KICK` and more), by support, by clock time to
    touch-down (thirds of the half cycle), and of the sideways kicks in single support,
    whether they point toward the stance foot (which must wait half a cycle before it can
    step out) or toward the swinging one. For the kicks of `BIG_KICK` and more, held and
    fallen apart: the median time to the first step, how far it landed from its catch
    target and the clock's frequency and shift after the kick. The rows are kept under
    'kicks'."""
    col = {name: i for i, name in enumerate(KICK_COLUMNS)}
    rows = [list(r) for r in rows]
    if any(len(r) != len(KICK_COLUMNS) for r in rows):
        raise ValueError(f"each kick needs the {len(KICK_COLUMNS)} columns {list(KICK_COLUMNS)}")

    def column(name, dtype):
        return np.array([r[col[name]] for r in rows], dtype)

    size, angle = column("size_m_s", float), column("angle_deg", float)
    fell, left = column("fell", bool), column("kick_left", bool)
    held = column("support", object)
    touchdown = column("clock_touchdown_s", float)
    first_step = np.array([np.nan if r[col["first_step_s"]] is None else r[col["first_step_s"]]
                           for r in rows], float)
    miss = np.array([np.nan if r[col["catch_miss_m"]] is None else r[col["catch_miss_m"]]
                     for r in rows], float)
    clock_hz = column("clock_hz", float)
    clock_shift = column("clock_shift_rad", float)
    big = size >= BIG_KICK
    half_cycle = 0.5 / gait_frequency
    thirds = [(i * half_cycle / 3, (i + 1) * half_cycle / 3) for i in range(3)]
    thirds[-1] = (thirds[-1][0], half_cycle + 1e-6)
    lo, hi = DIRECTIONS["pushed_sideways"]
    side = (angle >= lo) & (angle < hi)
    toward_stance = side & (((held == "left") & left) | ((held == "right") & ~left))
    toward_swing = side & (((held == "left") & ~left) | ((held == "right") & left))
    return {
        "all": _share(fell, np.ones_like(fell)),
        "by_size_m_s": {f"{lo}-{hi}": _share(fell, (size >= lo) & (size < hi))
                        for lo, hi in SIZE_BINS},
        "by_direction": {name: _share(fell, (angle >= lo) & (angle < hi))
                         for name, (lo, hi) in DIRECTIONS.items()},
        f"by_direction_{BIG_KICK}_m_s_and_more": {
            name: _share(fell, (angle >= lo) & (angle < hi) & (size >= BIG_KICK))
            for name, (lo, hi) in DIRECTIONS.items()},
        "by_support": {name: _share(fell, held == name) for name in SUPPORTS},
        "side_kicks_in_single_support": {"toward_stance_foot": _share(fell, toward_stance),
                                         "toward_swing_foot": _share(fell, toward_swing)},
        "by_clock_touchdown_s": {f"{lo:.2f}-{min(hi, half_cycle):.2f}":
                                 _share(fell, (touchdown >= lo) & (touchdown < hi))
                                 for lo, hi in thirds},
        f"first_step_after_kicks_of_{BIG_KICK}_m_s_and_more": {
            "held": _first_steps(first_step, miss, clock_hz, clock_shift, big & ~fell),
            "fell": _first_steps(first_step, miss, clock_hz, clock_shift, big & fell)},
        "kicks": rows,
    }
