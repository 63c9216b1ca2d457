import pytest

from mjxwalk.config import WalkConfig, override
from mjxwalk.errors import ConfigError


def test_override_nested_and_tuples():
    c = override(WalkConfig(), terrain="rough", commands={"vx_range": [0.0, 0.6]},
                 rewards={"alive": 1.0})
    assert c.terrain == "rough"
    assert c.commands.vx_range == (0.0, 0.6)
    assert c.rewards.alive == 1.0
    assert WalkConfig().rewards.alive == 0.5  # defaults untouched


@pytest.mark.parametrize("changes,message", [
    ({"observe_action_latency": "False"}, r"WalkConfig.observe_action_latency is true or false .*'False'"),
    ({"pushes": {"enabled": 1}}, r"Pushes.enabled is true or false"),
    ({"episode_length": "100"}, r"WalkConfig.episode_length is a number, got '100'"),
    ({"rewards": {"alive": True}}, r"RewardScales.alive is a number"),
])
def test_override_refuses_values_of_the_wrong_kind(changes, message):
    """`--set` keeps text that is not JSON as a string: 'False' must not switch a flag on."""
    with pytest.raises(ConfigError, match=message):
        override(WalkConfig(), **changes)
    # what JSON gives for these fields is taken, an int for a float too
    c = override(WalkConfig(), observe_action_latency=True, episode_length=100, rewards={"alive": 1})
    assert c.observe_action_latency is True and c.rewards.alive == 1


def test_unknown_field_suggests():
    with pytest.raises(ConfigError, match="no field 'terain'.*did you mean 'terrain'"):
        override(WalkConfig(), terain="rough")


@pytest.mark.parametrize("changes,message", [
    ({"terrain": "lava"}, "terrain must be"),
    ({"history_length": 0}, "history_length"),
    ({"commands": {"vx_range": (1.0, 0.0)}}, "low <= high"),
    ({"commands": {"zero_probability": 1.5}}, "zero_probability"),
    ({"commands": {"axis_zero_probability": -0.1}}, "axis_zero_probability must be in"),
    ({"yaw_tracking_sigma": 0.0}, "yaw_tracking_sigma must be > 0"),
    ({"yaw_rate_window": 0.0}, "yaw_rate_window must be > 0 s"),
    ({"feet_phase_sigma": -1e-4}, "feet_phase_sigma must be > 0"),
    ({"swing_height": -0.01}, "swing_height must be >= 0"),
    ({"gait_frequency_span": 1.5}, "gait_frequency_span must be >= 0 and below gait_frequency"),
    ({"gait_frequency_span": -0.1}, "gait_frequency_span must be >= 0"),
    ({"gait_phase": False, "gait_frequency_span": 0.5}, "gait_frequency_span needs gait_phase"),
    ({"gait_phase_offset_span": 3.2}, r"gait_phase_offset_span must be in \[0, pi\] rad"),
    ({"gait_phase_offset_span": -0.1}, r"gait_phase_offset_span must be in \[0, pi\] rad"),
    ({"gait_phase": False, "gait_phase_offset_span": 0.5}, "gait_phase_offset_span needs gait_phase"),
    ({"gait_frequency_span": 0.5, "gait_phase_offset_span": 0.5}, "two clock actions: set one"),
    ({"kick_recovery_window": -0.5}, "kick_recovery_window must be >= 0 s"),
    ({"pushes": {"angular_velocity": -1.0}}, r"pushes.angular_velocity must be >= 0 rad/s"),
    ({"pushes": {"velocity": [0.5, 0.1]}}, r"pushes.velocity must be \(low, high\)"),
    ({"pushes": {"interval": [0.0, 2.0]}}, r"pushes.interval must be \(low, high\) s with 0 < low"),
])
def test_invalid_values(changes, message):
    with pytest.raises(ConfigError, match=message):
        override(WalkConfig(), **changes)
