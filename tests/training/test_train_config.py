import pytest

from mjxwalk.errors import ConfigError
from mjxwalk.training.config import PRESETS, TrainConfig, smoke


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_presets_are_valid(name):
    PRESETS[name]().validate(device_count=1)


def test_gpu_preset_is_big():
    assert PRESETS["gpu"]().num_envs >= 8192


@pytest.mark.parametrize("changes,message", [
    ({"num_envs": 0}, "num_envs must be >= 1"),
    ({"learning_rate": 0.0}, "learning_rate"),
    ({"discounting": 1.5}, "discounting"),
    ({"minutes": -1.0}, "minutes"),
    ({"num_envs": 48, "batch_size": 32, "num_minibatches": 4}, "must be a multiple of num_envs"),
])
def test_invalid_configs(changes, message):
    import dataclasses
    with pytest.raises(ConfigError, match=message):
        dataclasses.replace(smoke(), **changes).validate()


def test_envs_must_split_over_devices():
    with pytest.raises(ConfigError, match="not divisible by the 3 devices"):
        TrainConfig(num_envs=1024).validate(device_count=3)


def test_cli_builds_config_from_preset_and_flags():
    from mjxwalk.cli.train import config_from_args, parser

    args = parser().parse_args(["--preset", "smoke", "--envs", "64", "--policy-hidden", "16", "16",
                                "--set", 'commands={"vx_range": [0.0, 0.3]}', "--set", "terrain=rough"])
    config, preset = config_from_args(args)
    assert preset == "smoke" and config.num_envs == 64 and config.policy_hidden == (16, 16)
    assert config.batch_size == smoke().batch_size  # untouched fields keep the preset's value
    assert dict(config.env_overrides) == {"commands": {"vx_range": [0.0, 0.3]}, "terrain": "rough"}


def test_cli_help_documents_every_field():
    from mjxwalk.cli.train import parser

    text = parser().format_help()
    for option in ("--envs", "--steps", "--minutes", "--resume", "--preset", "--seed", "--out",
                   "--coordinator", "--learning-rate"):
        assert option in text
    assert "Wall-clock budget" in text  # docstrings become help
    assert "costs 15% of" in " ".join(text.split())  # a docstring's % survives argparse
