"""The walk report's acceptance check, on reports written by hand."""

from mjxwalk.training.evaluate import check_targets


def _report(fwd_vx=0.28, turn_yaw=0.45, stand_vx=0.01, stand_yaw=0.02, falls=0.0):
    def row(cvx, cyaw, vx, yaw):
        return {"command_vx": cvx, "command_yaw_rate": cyaw, "mean_vx": vx,
                "mean_yaw_rate": yaw, "episodes_with_fall": falls, "falls_per_minute": 0.0}
    return {"forward_0.3": row(0.3, 0.0, fwd_vx, 0.0), "turn_0.5": row(0.0, 0.5, 0.0, turn_yaw),
            "stand": row(0.0, 0.0, stand_vx, stand_yaw)}


def test_a_walking_policy_meets_every_target():
    assert check_targets(_report()) == {"forward_speed": True, "turn_rate": True,
                                        "stand_still": True, "falls": True, "all": True}


def test_each_target_fails_on_its_own():
    # 0.3 m/s commanded: 0.22 is 27% short (limit 25%); 0.5 rad/s: 0.34 is 32% short (30%)
    assert not check_targets(_report(fwd_vx=0.22))["forward_speed"]
    assert check_targets(_report(fwd_vx=0.23))["forward_speed"]
    assert not check_targets(_report(fwd_vx=0.38))["forward_speed"]  # too fast counts too
    assert not check_targets(_report(turn_yaw=0.34))["turn_rate"]
    assert not check_targets(_report(stand_vx=0.06))["stand_still"]
    assert not check_targets(_report(stand_yaw=-0.15))["stand_still"]
    r = check_targets(_report(falls=0.05))
    assert not r["falls"] and not r["all"]
