"""Typed training configs and presets (plain functions), validated before anything compiles."""

from __future__ import annotations

import dataclasses

from mjxwalk.errors import ConfigError


MAX_ENV_STEPS = 2**31
"""Env step counts must stay below this: the training state counts steps in int32 (JAX's
default integer without x64)."""


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """Everything a training run depends on, besides the env's own config."""

    task: str = "walk"
    """Task name (see mjxwalk.list_tasks())."""
    robot: str = "kidbot"
    """Built-in robot name or path of a robot spec file."""
    terrain: str = "flat"
    """'flat' or 'rough' (rough enables the terrain curriculum)."""
    num_envs: int = 1024
    """Parallel environments, over all devices and hosts."""
    num_timesteps: int = 20_000_000
    """Environment steps to train for."""
    minutes: float | None = None
    """Wall-clock budget of this call, minutes (a resume starts a new one); training stops
    cleanly (checkpoint + export) when it runs out."""
    episode_length: int = 1000
    """Control steps per episode (truncation)."""
    unroll_length: int = 20
    """Steps collected per env before each update."""
    batch_size: int = 256
    """Unrolls per minibatch, over all devices."""
    num_minibatches: int = 8
    """Minibatches per update epoch."""
    num_updates_per_batch: int = 4
    """Passes over the collected data per update."""
    learning_rate: float = 3e-4
    """Adam learning rate (until `learning_rate_decay_start_steps` when `learning_rate_final`
    is set)."""
    learning_rate_final: float | None = None
    """Learning rate of the last iteration, reached at `num_timesteps`: from
    `learning_rate_decay_start_steps` on, each iteration's rate is interpolated linearly
    between `learning_rate` and this by the env steps at its end. None keeps
    `learning_rate` throughout. The kidbot walk run at 16.0M decayed to 0 over 2.0M more
    steps fell less than its constant-rate control in every scenario, resolvably in none,
    and its nearby checkpoints still disagreed on as many episodes
    (benchmarks/results/walk_cpu_recipe_0995_lr_decay.json)."""
    learning_rate_decay_start_steps: int = 0
    """Env steps from which the learning rate moves towards `learning_rate_final`. At or past
    `num_timesteps` the rate stays `learning_rate` (a resume trained further decays)."""
    entropy_cost: float = 1e-2
    """Weight of the entropy bonus. Resuming a 12.2M-step walk run for 1.6M steps at 1e-3
    instead moved the policy's standard deviation from 0.67 to 0.62 and changed no fall
    share (benchmarks/results/walk_cpu_feet_phase_05_finetune_entropy_1e-3.json)."""
    discounting: float = 0.97
    """Discount factor (until `discounting_switch_steps` when `discounting_final` is set)."""
    discounting_final: float | None = None
    """Discount factor from `discounting_switch_steps` env steps on; None keeps `discounting`
    throughout. A longer horizon once the robot walks: the 8-pass kidbot walk run resumed at
    9.9M steps with 0.99 halved its training falls per step within 1M steps
    (benchmarks/results/walk_cpu_updates_8_resume_discount_099.json)."""
    discounting_switch_steps: int = 0
    """Env steps after which `discounting_final` replaces `discounting` (from the first
    iteration that starts at or past it). It may lie past `num_timesteps`: that run keeps
    `discounting`, and a resume trained further reaches the switch."""
    gae_lambda: float = 0.95
    """GAE lambda: how far an action's advantage follows the rewards that came after it before
    trusting the critic, about 1 / (1 - discount * lambda) steps. The kidbot walk config at
    0.98 instead (0.8 s at discount 0.995 against 0.37 s) fell no less in the walk report and
    walked slower (benchmarks/results/walk_cpu_0995_lambda_098.json)."""
    clipping_epsilon: float = 0.2
    """PPO ratio clipping."""
    reward_scaling: float = 1.0
    """Multiplier on rewards inside the loss."""
    max_grad_norm: float = 1.0
    """Gradient clipping by global norm."""
    clip_gradients_per_network: bool = False
    """Clip the actor's (with its estimator, if any) and the critic's gradients each by its
    own global norm (`max_grad_norm`) instead of both by one, so the critic's large
    gradients do not set the actor's clip factor (`mjxwalk.training.optimizer`). Adam
    cancels a steady factor, but the critic's gradient jumps 30-50-fold at a discount
    switch, and one clip then shrinks the actor's steps for millions of steps. The 0.995
    kidbot walk config with it walked faster (0.27 m/s for 0.3 against 0.22-0.24) and fell
    no less (benchmarks/results/walk_cpu_0995_clip_each.json); at 0.998 it fell in 10% of the
    forward episodes against 18% with one clip, and walked 0.18 m/s
    (walk_cpu_0998_clip_each.json). The presets keep one clip."""
    normalize_observations: bool = True
    """Running mean/std normalization of observations."""
    symmetry_augmentation: bool = False
    """Also learn from the left-right mirror image of every collected trajectory (the robot
    must be mirror-symmetric; `mjxwalk.symmetry` checks it). Doubles each minibatch, which
    costs 15% of the training steps per second on a 2-core CPU; the `cpu` and `gpu`
    presets turn it on: the kidbot walk run reached at 12.2M steps the training reward,
    falls and tracking error the run without it had at 19.9M
    (benchmarks/results/walk_cpu_symmetry.json)."""
    policy_hidden: tuple[int, ...] = (128, 128, 128)
    """Actor MLP layer sizes. 512-256-128 (with the same critic) trained the kidbot walk at
    half the steps per second on a 2-core CPU and, by 8M steps, no better per step
    (benchmarks/results/walk_cpu_big_net.json)."""
    value_hidden: tuple[int, ...] = (256, 256, 256)
    """Critic MLP layer sizes."""
    estimator_targets: tuple[str, ...] = ()
    """Parts of the privileged observation (`mjxwalk.envs.walk_sensing.privileged_layout`
    names, e.g. lin_vel) that a small MLP learns to estimate from the actor's observation,
    by regression against the simulator's truth; the actor sees its observation with the
    estimate appended, and the policy still takes only the contract's observation. Empty:
    none."""
    estimator_hidden: tuple[int, ...] = (128, 64)
    """Estimator MLP layer sizes (used with `estimator_targets`)."""
    estimator_loss_weight: float = 1.0
    """Weight of the estimator's mean squared error in the loss. Its gradient reaches only the
    estimator (the actor gets the estimate through a stop-gradient), so the weight sets its
    learning rate against Adam's normalization, not a trade-off with PPO."""
    seed: int = 0
    """Random seed (training is deterministic for a seed on one CPU)."""
    log_every: int = 1
    """Training iterations between metric records."""
    checkpoint_every_s: float = 120.0
    """Seconds between checkpoints (one is always written at the end)."""
    keep_checkpoints: int = 3
    """Checkpoints kept on disk."""
    env_overrides: tuple[tuple[str, object], ...] = ()
    """(field, value) overrides of the env config, e.g. (('commands', {...}),)."""

    @property
    def env_steps_per_iteration(self) -> int:
        return self.batch_size * self.num_minibatches * self.unroll_length

    @property
    def unrolls_per_env(self) -> int:
        """Unrolls each env collects per iteration: `batch_size` x `num_minibatches` over all
        devices, as in brax (`validate` checks that it divides)."""
        return self.batch_size * self.num_minibatches // self.num_envs

    def validate(self, device_count: int = 1) -> None:
        """Raise ConfigError for any value that cannot work, before compiling anything."""
        positive = ("num_envs", "num_timesteps", "episode_length", "unroll_length", "batch_size",
                    "num_minibatches", "num_updates_per_batch", "log_every", "keep_checkpoints")
        for name in positive:
            if getattr(self, name) < 1:
                raise ConfigError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.learning_rate <= 0:
            raise ConfigError("learning_rate must be > 0")
        if self.max_grad_norm <= 0:
            raise ConfigError(f"max_grad_norm must be > 0, got {self.max_grad_norm}")
        if not 0 < self.discounting <= 1:
            raise ConfigError("discounting must be in (0, 1]")
        if self.discounting_final is None and self.discounting_switch_steps:
            raise ConfigError("discounting_switch_steps is set but discounting_final is not: "
                              "give the discount to switch to")
        if self.discounting_final is not None:
            if not 0 < self.discounting_final <= 1:
                raise ConfigError("discounting_final must be in (0, 1]")
            # a switch past num_timesteps is allowed: a shorter run of a preset keeps
            # `discounting`, and a --resume with more steps reaches the switch
            if self.discounting_switch_steps < 0:
                raise ConfigError("discounting_switch_steps must be >= 0, got "
                                  f"{self.discounting_switch_steps:,}")
        for name in ("num_timesteps", "discounting_switch_steps",
                     "learning_rate_decay_start_steps"):
            if getattr(self, name) >= MAX_ENV_STEPS:
                raise ConfigError(f"{name} {getattr(self, name):,} does not fit the training "
                                  f"state's int32 step counter (at most {MAX_ENV_STEPS - 1:,})")
        if self.learning_rate_final is None and self.learning_rate_decay_start_steps:
            raise ConfigError("learning_rate_decay_start_steps is set but learning_rate_final "
                              "is not: give the learning rate to decay to")
        if self.learning_rate_final is not None and self.learning_rate_final < 0:
            raise ConfigError(f"learning_rate_final must be >= 0, got {self.learning_rate_final}")
        if self.learning_rate_decay_start_steps < 0:
            raise ConfigError("learning_rate_decay_start_steps must be >= 0, got "
                              f"{self.learning_rate_decay_start_steps:,}")
        if self.estimator_targets and self.estimator_loss_weight <= 0:
            raise ConfigError("estimator_loss_weight must be > 0 when estimator_targets are set, "
                              f"got {self.estimator_loss_weight}")
        for name in ("policy_hidden", "value_hidden", "estimator_hidden"):
            if any(size < 1 for size in getattr(self, name)):
                raise ConfigError(f"{name} sizes must be >= 1, got {getattr(self, name)}")
        if self.minutes is not None and self.minutes <= 0:
            raise ConfigError("minutes must be > 0")
        if self.num_envs % device_count:
            raise ConfigError(f"num_envs {self.num_envs} is not divisible by the {device_count} "
                              "devices it is spread over")
        rollout = self.batch_size * self.num_minibatches
        if rollout % self.num_envs:
            raise ConfigError(f"batch_size x num_minibatches = {rollout} must be a multiple of "
                              f"num_envs ({self.num_envs}), so every env unrolls the same number "
                              "of times per update")
        per_device = self.unrolls_per_env * (self.num_envs // device_count)
        if per_device % self.num_minibatches:
            raise ConfigError(f"the {per_device} unrolls each device collects do not split into "
                              f"{self.num_minibatches} minibatches")


def smoke() -> TrainConfig:
    """Seconds on a CPU: for tests and for checking an install. Symmetry augmentation is on
    as in `cpu` and `gpu`, so a smoke run goes through the same training step."""
    return TrainConfig(num_envs=32, num_timesteps=4 * 32 * 8 * 4, episode_length=100,
                       unroll_length=8, batch_size=32, num_minibatches=4,
                       num_updates_per_batch=2, policy_hidden=(32, 32), value_hidden=(32, 32),
                       checkpoint_every_s=1e9, symmetry_augmentation=True)


def cpu() -> TrainConfig:
    """A few thousand envs on a 2-core machine: the recipe that fell least on this CPU, about
    90 minutes at 3.0k steps/s (a `--minutes` budget ends it sooner, cleanly)."""
    # 8 passes, a third of the entropy cost, and the discount lengthened to 0.99 once the
    # robot walks: 20 / 5.5 / 6% of the walk report's forward / turn / stand episodes fall
    # at 16M steps, where 1e-2, 4 passes and 0.97 throughout fell in 32 / 16 / 14% at 19.9M
    # (benchmarks/results/walk_cpu_entropy_3e-3_099_control.json, walk_cpu_symmetry.json)
    return TrainConfig(num_envs=1024, num_timesteps=16_015_360, batch_size=256,
                       num_minibatches=8, unroll_length=20, num_updates_per_batch=8,
                       entropy_cost=3e-3, discounting=0.97, discounting_final=0.99,
                       discounting_switch_steps=9_871_360, symmetry_augmentation=True)


def gpu() -> TrainConfig:
    """One accelerator: 8192 envs, big batches."""
    # the learner settings accelerator-trained walkers use (4 passes, the default entropy
    # cost, 0.97 throughout); the cpu recipe's changes were measured at 1024 envs and 16M
    # steps and stay out of this preset until a GPU run measures them at this scale
    return TrainConfig(num_envs=8192, num_timesteps=200_000_000, batch_size=1024,
                       num_minibatches=32, unroll_length=20, num_updates_per_batch=4,
                       checkpoint_every_s=300.0, symmetry_augmentation=True)


PRESETS = {"smoke": smoke, "cpu": cpu, "gpu": gpu}
"""Preset name -> function returning a TrainConfig."""


def default_preset() -> str:
    """'gpu' when JAX sees an accelerator, else 'cpu'."""
    import jax

    return "gpu" if jax.default_backend() in ("gpu", "tpu", "cuda", "rocm") else "cpu"
