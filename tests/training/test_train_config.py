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
    ({"max_grad_norm": 0.0}, "max_grad_norm must be > 0"),
    ({"discounting": 1.5}, "discounting"),
    ({"minutes": -1.0}, "minutes"),
    ({"discounting_switch_steps": 100}, "discounting_final is not"),
    ({"discounting_final": 0.0}, "discounting_final must be in"),
    ({"discounting_final": 0.99, "discounting_switch_steps": -1}, "discounting_switch_steps must be >= 0"),
    ({"discounting_final": 0.99, "discounting_switch_steps": 2**31}, "int32 step counter"),
    ({"num_timesteps": 2**31}, "int32 step counter"),
    ({"learning_rate_decay_start_steps": 100}, "learning_rate_final is not"),
    ({"learning_rate_final": -1e-4}, "learning_rate_final must be >= 0"),
    ({"learning_rate_final": 0.0, "learning_rate_decay_start_steps": -1},
     "learning_rate_decay_start_steps must be >= 0"),
    ({"learning_rate_final": 0.0, "learning_rate_decay_start_steps": 2**31}, "int32 step counter"),
    ({"num_envs": 48, "batch_size": 32, "num_minibatches": 4}, "must be a multiple of num_envs"),
    ({"estimator_targets": ("lin_vel",), "estimator_loss_weight": 0.0}, "estimator_loss_weight"),
    ({"estimator_hidden": (64, 0)}, "estimator_hidden sizes must be >= 1"),
    ({"policy_hidden": (-1,)}, "policy_hidden sizes"),
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


def test_cli_takes_tuples_of_names():
    """A tuple option parses its values as the field's element type: names stay strings."""
    from mjxwalk.cli.train import config_from_args, parser

    args = parser().parse_args(["--preset", "smoke", "--estimator-targets", "lin_vel",
                                "feet_contact", "--estimator-hidden", "32"])
    config, _ = config_from_args(args)
    assert config.estimator_targets == ("lin_vel", "feet_contact")
    assert config.estimator_hidden == (32,)


def test_cli_help_documents_every_field():
    from mjxwalk.cli.train import parser

    text = parser().format_help()
    for option in ("--envs", "--steps", "--minutes", "--resume", "--preset", "--seed", "--out",
                   "--coordinator", "--learning-rate"):
        assert option in text
    assert "Wall-clock budget" in text  # docstrings become help
    assert "costs 15% of" in " ".join(text.split())  # a docstring's % survives argparse
    for name, preset in PRESETS.items():  # --help says what each preset is for
        assert f"{name}: {' '.join(preset.__doc__.split()[:4])}" in " ".join(text.split())


def _saved_run(tmp_path, config):
    import dataclasses
    import json

    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"train": dataclasses.asdict(config)}))
    return run


def test_cli_resume_continues_with_the_runs_own_config(tmp_path):
    """A resume without --preset must not silently swap the run's settings for a preset's:
    its fields and env overrides stay, options given now change them."""
    import dataclasses

    from mjxwalk.cli.train import config_from_args, parser

    trained = dataclasses.replace(smoke(), num_envs=64, learning_rate=1e-3, minutes=10.0,
                                  env_overrides=(("rewards", {"feet_phase": 0.5}),))
    run = _saved_run(tmp_path, trained)
    args = parser().parse_args(["--out", str(run), "--resume", "--steps", "9999",
                                "--set", 'rewards={"action_rate": -0.06}'])
    config, preset = config_from_args(args)
    assert preset is None
    assert config.num_envs == 64 and config.learning_rate == 1e-3 and config.num_timesteps == 9999
    assert config.minutes is None  # the first invocation's budget is not the resume's
    assert config.policy_hidden == smoke().policy_hidden  # tuples again, as the networks compare
    assert config.env_overrides == (("rewards", {"feet_phase": 0.5}),
                                    ("rewards", {"action_rate": -0.06}))

    args = parser().parse_args(["--out", str(run), "--resume", "--minutes", "5"])
    assert config_from_args(args)[0].minutes == 5.0
    args = parser().parse_args(["--out", str(run), "--resume", "--preset", "cpu"])
    config, preset = config_from_args(args)
    assert preset == "cpu" and config.num_envs == PRESETS["cpu"]().num_envs


def test_a_preset_run_shorter_than_its_discount_switch_is_valid_and_says_so():
    """The cpu preset switches the discount at 9.9M steps; asking it for fewer steps trains
    at the first discount throughout, and the CLI says when the switch would come."""
    from mjxwalk.cli.train import config_from_args, discount_note, parser

    full = PRESETS["cpu"]()
    assert discount_note(full) is None
    short, _ = config_from_args(parser().parse_args(["--preset", "cpu", "--steps", "2000000"]))
    short.validate(device_count=1)
    note = discount_note(short)
    assert note is not None and f"{full.discounting_switch_steps:,}" in note
    assert str(full.discounting) in note and str(full.discounting_final) in note
    budget, _ = config_from_args(parser().parse_args(["--preset", "cpu", "--minutes", "10"]))
    note = discount_note(budget)
    assert note is not None and "10-minute budget" in note
    assert f"{full.discounting_switch_steps:,}" in note


def test_a_budgeted_resume_is_told_of_the_switch_only_before_it(tmp_path):
    """A --minutes resume of a run already past its discount switch trains at the final
    discount from its first step, so the note would be wrong there; before the switch it
    still applies. The step comes from the last finished checkpoint's folder name."""
    from mjxwalk.cli.train import config_from_args, discount_note, parser, resumed_steps

    run = _saved_run(tmp_path, PRESETS["cpu"]())
    switch = PRESETS["cpu"]().discounting_switch_steps
    args = parser().parse_args(["--out", str(run), "--resume", "--minutes", "20"])
    config, _ = config_from_args(args)
    assert resumed_steps(args) == 0  # no checkpoint yet
    for step, told in ((switch - 40960, True), (switch, False), (switch + 409600, False)):
        (run / "checkpoints" / str(step)).mkdir(parents=True)
        (run / "checkpoints" / f"{step + 1}.orbax-checkpoint-tmp-1").mkdir()  # cut off mid-write
        assert resumed_steps(args) == step
        assert (discount_note(config, resumed_steps(args)) is not None) == told, step
    fresh = parser().parse_args(["--out", str(run), "--preset", "cpu", "--minutes", "20"])
    assert resumed_steps(fresh) == 0  # not a resume: a fresh run starts at step 0


def test_cpu_preset_is_the_config_the_walk_report_measured():
    """The README's figures for the cpu preset come from walk_cpu_preset.json, a run of the
    preset itself; the preset must stay the config that run recorded, or those figures no
    longer describe it."""
    import dataclasses
    import json
    from pathlib import Path

    results = Path(__file__).parents[2] / "benchmarks" / "results"
    recorded = json.loads((results / "walk_cpu_preset.json").read_text())["train_config"]
    cpu = PRESETS["cpu"]()
    preset = json.loads(json.dumps(dataclasses.asdict(cpu)))  # tuples as the JSON's lists
    assert {k: preset[k] for k in recorded} == recorded
    # fields added since that run must be at their defaults, which change nothing
    defaults = json.loads(json.dumps(dataclasses.asdict(TrainConfig())))
    assert {k: preset[k] for k in preset.keys() - recorded.keys()} == \
        {k: defaults[k] for k in preset.keys() - recorded.keys()}
    # the switch lands on an iteration boundary, so it happens at the step the docs name
    assert cpu.discounting_switch_steps % cpu.env_steps_per_iteration == 0


def test_cli_resume_from_a_missing_or_malformed_config_names_the_file(tmp_path):
    from mjxwalk.cli.train import config_from_args, parser

    run = tmp_path / "run"
    with pytest.raises(ConfigError, match="config.json: no such file; is .* a run directory"):
        config_from_args(parser().parse_args(["--out", str(run), "--resume"]))
    run.mkdir()
    (run / "config.json").write_text('{"train": {"num_envs": 64, "no_such_field": 1')
    with pytest.raises(ConfigError, match="config.json: not a run's config"):
        config_from_args(parser().parse_args(["--out", str(run), "--resume"]))


def test_later_env_overrides_amend_earlier_ones():
    import dataclasses

    from mjxwalk.training.run import build_env

    config = dataclasses.replace(smoke(), env_overrides=(
        ("rewards", {"feet_phase": 0.5}), ("rewards", {"action_rate": -0.06})))
    rewards = build_env(config).config.rewards
    assert rewards.feet_phase == 0.5 and rewards.action_rate == -0.06
