import math

import pytest

from mjxwalk.training import kicks


def test_support_names_each_contact_pair():
    assert [kicks.support(c) for c in ((1, 0), (0, 1), (1, 1), (0, 0))] == list(kicks.SUPPORTS)


def test_clock_touchdown_counts_down_each_half_cycle():
    # at 1.5 Hz a foot lands every 1/3 s: the left at phase pi, the right at 2 pi
    assert kicks.clock_touchdown_s(0.0, 1.5) == pytest.approx(1 / 3)
    assert kicks.clock_touchdown_s(math.pi / 2, 1.5) == pytest.approx(1 / 6)
    assert kicks.clock_touchdown_s(math.pi - 1e-6, 1.5) == pytest.approx(0.0, abs=1e-6)
    assert kicks.clock_touchdown_s(3 * math.pi / 2 + 4 * math.pi, 1.5) == pytest.approx(1 / 6)
    with pytest.raises(ValueError, match="gait frequency must be > 0"):
        kicks.clock_touchdown_s(0.0, 0.0)


def _kick(fell, angle=90.0, left=True, support="left", touchdown=0.05, size=0.3,
          first_step=0.1, miss=0.05, clock_hz=1.5, clock_shift=0.0):
    return [0, 100, size, angle, fell, left, support, touchdown, first_step, miss, clock_hz,
            clock_shift]


def test_summarize_splits_sideways_kicks_by_stance_foot():
    rows = [_kick(True, left=True, support="left"),     # toward the stance foot
            _kick(True, left=False, support="right"),   # toward the stance foot
            _kick(False, left=False, support="left"),   # toward the swinging foot
            _kick(True, left=True, support="both"),     # double support: neither
            _kick(False, angle=10.0, left=True, support="left"),  # not sideways
            _kick(True, left=True, support="left", size=0.2)]  # toward the stance foot, small
    out = kicks.summarize(rows, gait_frequency=1.5)
    single = out["side_kicks_in_single_support"]
    assert single["toward_stance_foot"] == {"pushes": 3, "fall_share": 1.0}
    assert single["toward_swing_foot"] == {"pushes": 1, "fall_share": 0.0}
    assert out["by_support"]["both"] == {"pushes": 1, "fall_share": 1.0}
    assert out["by_support"]["none"] == {"pushes": 0, "fall_share": None}
    assert out["by_direction"]["pushed_forward"] == {"pushes": 1, "fall_share": 0.0}
    assert out["by_direction_0.3_m_s_and_more"]["pushed_sideways"] == {"pushes": 4,
                                                                       "fall_share": 0.75}
    assert out["all"] == {"pushes": 6, "fall_share": 4 / 6}
    assert out["kicks"] == rows


def test_summarize_bins_clock_timing_in_thirds_of_the_half_cycle():
    # 1.5 Hz: touch-downs 1/3 s apart, so bins of 1/9 s; the half cycle itself is included
    rows = [_kick(True, touchdown=0.0), _kick(False, touchdown=0.12),
            _kick(True, touchdown=0.25), _kick(True, touchdown=1 / 3)]
    out = kicks.summarize(rows, gait_frequency=1.5)["by_clock_touchdown_s"]
    assert list(out) == ["0.00-0.11", "0.11-0.22", "0.22-0.33"]
    assert [b["pushes"] for b in out.values()] == [1, 1, 2]
    assert out["0.22-0.33"]["fall_share"] == 1.0


def test_summarize_refuses_rows_of_the_wrong_width():
    with pytest.raises(ValueError, match="12 columns"):
        kicks.summarize([[0, 100, 0.3, 90.0, True]], gait_frequency=1.5)


def test_first_touchdown_finds_the_first_foot_that_lands():
    #            left, right
    contact = [[1, 1], [1, 0], [1, 0], [1, 1], [0, 1], [1, 1]]
    assert kicks.first_touchdown(contact, 1, 6) == (3, 1)  # the right foot lands at step 3
    assert kicks.first_touchdown(contact, 4, 6) == (5, 0)
    assert kicks.first_touchdown(contact, 1, 3) is None  # nothing lands before the stop
    assert kicks.first_touchdown(contact, 0, 99) == (3, 1)  # clipped to the record
    assert kicks.first_touchdown([[0, 0], [1, 1]], 0, 2) == (1, 0)  # both: the lower index


def test_summarize_first_steps_of_big_kicks_held_and_fallen_apart():
    rows = [_kick(False, first_step=0.1, miss=0.02, clock_hz=1.8, clock_shift=0.4),
            _kick(False, first_step=0.3, miss=0.04, clock_hz=1.6, clock_shift=0.2),
            _kick(True, first_step=0.4, miss=0.10, clock_hz=1.2, clock_shift=-0.5),
            _kick(True, first_step=None, miss=None, clock_hz=1.4, clock_shift=0.1),  # no step
            _kick(False, size=0.2, first_step=5.0, miss=5.0, clock_hz=9.0, clock_shift=9.0)]
    out = kicks.summarize(rows, gait_frequency=1.5)["first_step_after_kicks_of_0.3_m_s_and_more"]
    assert out["held"] == {"pushes": 2, "stepped": 2, "median_first_step_s": pytest.approx(0.2),
                           "median_catch_miss_m": pytest.approx(0.03),
                           "median_clock_hz": pytest.approx(1.7),
                           "median_clock_shift_rad": pytest.approx(0.3)}
    assert out["fell"] == {"pushes": 2, "stepped": 1, "median_first_step_s": pytest.approx(0.4),
                           "median_catch_miss_m": pytest.approx(0.10),
                           "median_clock_hz": pytest.approx(1.3),
                           "median_clock_shift_rad": pytest.approx(-0.2)}
    empty = kicks.summarize([_kick(True, first_step=None, miss=None)], 1.5)
    assert empty["first_step_after_kicks_of_0.3_m_s_and_more"]["fell"]["median_first_step_s"] is None
