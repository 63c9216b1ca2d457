import dataclasses

import mjxwalk
from mjxwalk import bench
from mjxwalk.training.config import cpu


def test_training_benchmark_times_the_cpu_presets_learner():
    """The training benchmark is only comparable across commits if it times what the cpu
    preset trains with: same passes, unroll and networks, a whole number of iterations."""
    robot = mjxwalk.load_robot("kidbot")
    config = bench.training_config(robot, 1024, iterations=4)
    config.validate(device_count=1)
    preset = cpu()
    for field in ("num_updates_per_batch", "unroll_length", "policy_hidden", "value_hidden",
                  "symmetry_augmentation"):
        assert getattr(config, field) == getattr(preset, field), field
    assert config.num_envs == 1024
    assert config.num_timesteps == 4 * config.env_steps_per_iteration
    # every env unrolls once per iteration, as in the preset at its own 1024 envs
    assert config.env_steps_per_iteration == preset.env_steps_per_iteration
    assert set(bench.LEARNER_FIELDS) <= {f.name for f in dataclasses.fields(config)}
