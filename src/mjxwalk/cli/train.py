"""mjxwalk-train: train a policy with PPO on thousands of MJX envs.

Every TrainConfig field is an option (help from the field's docstring); a preset fills the
defaults: 'gpu' on an accelerator, 'cpu' otherwise, 'smoke' for a quick check.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import json
import os
import signal
import sys
import typing
from pathlib import Path

from mjxwalk.cli._common import quiet_imports

ALIASES = {"num_envs": "--envs", "num_timesteps": "--steps"}
HANDLED = {"env_overrides"}  # set through --set


def field_docs(cls) -> dict[str, str]:
    """Attribute docstrings of a dataclass (the string literal after each field)."""
    tree = ast.parse(inspect.getsource(cls))
    docs, body = {}, tree.body[0].body
    for node, nxt in zip(body, body[1:]):
        if isinstance(node, ast.AnnAssign) and isinstance(nxt, ast.Expr) and \
                isinstance(nxt.value, ast.Constant) and isinstance(nxt.value.value, str):
            docs[node.target.id] = nxt.value.value
    return docs


def parser() -> argparse.ArgumentParser:
    from mjxwalk.training.config import PRESETS, TrainConfig

    p = argparse.ArgumentParser(
        prog="mjxwalk-train", description=__doc__,
        epilog="Fields left out take the preset's value (with --resume, the run's own).")
    presets = "; ".join(f"{name}: {' '.join(fn.__doc__.split()).rstrip('.')}"
                        for name, fn in PRESETS.items()).replace("%", "%%")  # argparse formats
    p.add_argument("--preset", choices=sorted(PRESETS), default=None,
                   help="defaults for every field below (default: gpu on an accelerator, else "
                   f"cpu). {presets}")
    p.add_argument("--out", type=Path, default=None, help="run directory (default: runs/<name>)")
    p.add_argument("--name", default=None, help="run name under runs/ (default: task-robot-time)")
    p.add_argument("--resume", action="store_true",
                   help="continue the run in --out from its last checkpoint, with the training "
                   "config and --set overrides it was started with, but no --minutes budget "
                   "(options given now change them; --preset starts from a preset instead)")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=JSON",
                   help="override an env config field, e.g. --set 'commands={\"vx_range\": [0, 0.5]}'")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    dist = p.add_argument_group("several hosts (jax.distributed; or the usual JAX_* variables)")
    dist.add_argument("--coordinator", default=os.environ.get("JAX_COORDINATOR_ADDRESS"),
                      help="host:port of process 0")
    dist.add_argument("--num-processes", type=int, default=_env_int("JAX_NUM_PROCESSES"))
    dist.add_argument("--process-id", type=int, default=_env_int("JAX_PROCESS_ID"))
    docs = field_docs(TrainConfig)
    hints = typing.get_type_hints(TrainConfig)
    for f in dataclasses.fields(TrainConfig):
        if f.name in HANDLED:
            continue
        flags = [f"--{f.name.replace('_', '-')}"] + ([ALIASES[f.name]] if f.name in ALIASES else [])
        kind = hints[f.name]
        # argparse formats help with %, so a docstring's own % must be escaped
        kw: dict = {"default": None, "help": docs.get(f.name, "").replace("%", "%%")}
        if kind is bool:
            kw["action"] = argparse.BooleanOptionalAction
        elif typing.get_origin(kind) is tuple:  # tuple[int, ...] or tuple[str, ...]
            kw.update(type=typing.get_args(kind)[0], nargs="+")
        else:
            base = [a for a in typing.get_args(kind) if a is not type(None)] or [kind]
            kw["type"] = base[0]
        p.add_argument(*flags, dest=f.name, **kw)
    return p


def _env_int(name: str) -> int | None:
    value = os.environ.get(name)
    return int(value) if value else None


def config_from_args(args) -> tuple:
    from mjxwalk.training.config import PRESETS, TrainConfig, default_preset

    run_dir = _run_dir(args)
    if args.resume and args.preset is None and run_dir is not None:
        # a resume continues the run as it was configured; options given now change it. A
        # wall-clock budget belongs to one invocation, not to the run
        from mjxwalk.training.run import saved_config

        config, preset = dataclasses.replace(saved_config(run_dir), minutes=None), None
    else:
        preset = args.preset or default_preset()
        config = PRESETS[preset]()
    changes = {f.name: getattr(args, f.name) for f in dataclasses.fields(TrainConfig)
               if f.name not in HANDLED and getattr(args, f.name, None) is not None}
    changes = {k: tuple(v) if isinstance(v, list) else v for k, v in changes.items()}
    overrides = parse_overrides(args.set)
    if overrides:  # after the resumed run's own, which they amend
        changes["env_overrides"] = config.env_overrides + tuple(overrides)
    return dataclasses.replace(config, **changes), preset


def parse_overrides(items: list[str], prog: str = "mjxwalk-train") -> list[tuple[str, object]]:
    """`--set FIELD=JSON` items as (field, value) env overrides; a value that is not JSON is
    a bare string."""
    overrides = []
    for item in items:
        field, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"{prog}: --set needs FIELD=JSON, got {item!r}")
        try:
            overrides.append((field, json.loads(value)))
        except json.JSONDecodeError:
            overrides.append((field, value))
    return overrides


def _run_dir(args) -> Path | None:
    return args.out or (Path("runs") / args.name if args.name else None)


def resumed_steps(args) -> int:
    """The env steps a --resume starts from: its last finished checkpoint (0 otherwise)."""
    run_dir = _run_dir(args)
    if not args.resume or run_dir is None:
        return 0
    from mjxwalk.training.checkpoint import saved_steps

    return max(saved_steps(run_dir / "checkpoints"), default=0)


def discount_note(config, start_steps: int = 0) -> str | None:
    """What to tell a user whose run may end before its discount switch (a preset run given
    fewer --steps, or a --minutes budget), so the constant discount is no surprise; nothing
    for a resume that starts at `start_steps` past the switch, which it already made."""
    if (config.discounting_final is None or config.discounting_switch_steps == 0
            or start_steps >= config.discounting_switch_steps):
        return None
    at = f"{config.discounting_switch_steps:,} steps"
    if config.discounting_switch_steps >= config.num_timesteps:
        return (f"the discount stays {config.discounting} for these {config.num_timesteps:,} "
                f"steps: it switches to {config.discounting_final} at {at} (a --resume with "
                "more --steps reaches it)")
    if config.minutes is not None:
        return (f"the discount is {config.discounting} until {at}, then "
                f"{config.discounting_final}; the {config.minutes:g}-minute budget may end the "
                "run before that (a --resume continues it)")
    return None


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    quiet_imports()
    import jax

    if args.coordinator:
        from mjxwalk import compat

        compat.initialize_distributed(args.coordinator, args.num_processes, args.process_id)
    from mjxwalk.errors import MjxwalkError
    from mjxwalk.training.run import train

    try:
        config, preset = config_from_args(args)
        source = f"preset {preset}" if preset else f"the config of {args.out or args.name}"
        print(f"mjxwalk-train: {source}, {config.num_envs} envs, {config.num_timesteps:,} "
              f"steps on {jax.device_count()} {jax.default_backend()} device(s)"
              + (f", budget {config.minutes} min" if config.minutes else ""))
        if note := discount_note(config, resumed_steps(args)):
            print(f"mjxwalk-train: {note}")
        result = train(config, out=args.out, name=args.name, resume=args.resume,
                       show_progress=not args.quiet)
    except MjxwalkError as e:
        print(f"mjxwalk-train: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # a second Ctrl-C, or one before training started
        print("mjxwalk-train: interrupted; the last checkpoint is kept (resume with --resume)",
              file=sys.stderr)
        return 130
    m = result.metrics
    # the shell's code for a process its signal ended (130 for Ctrl-C); "signal": another
    # process of the run got it, which stopped this one as a SIGTERM would
    code = {"SIGINT": 128 + signal.SIGINT, "SIGTERM": 128 + signal.SIGTERM,
            "signal": 128 + signal.SIGTERM}.get(result.stopped_by)
    if code is not None:
        print(f"mjxwalk-train: stopped by {result.stopped_by} at {result.env_steps:,} env steps; "
              f"checkpoint and policy saved in {result.run_dir} (continue with --out "
              f"{result.run_dir} --resume)", file=sys.stderr)
        return code
    print(f"done: {result.env_steps:,} env steps ({result.stopped_by}); reward/step "
          f"{m.get('env/reward', float('nan')):.3f}, falls/step {m.get('env/falls', float('nan')):.4f}, "
          f"velocity error {m.get('env/lin_vel_error', float('nan')):.3f} m/s")
    made = [name for name in ("report.png", "metrics.jsonl", "checkpoints/", "policy_params.msgpack")
            if (result.run_dir / name.rstrip("/")).exists()]
    print(f"run directory: {result.run_dir} ({', '.join(made)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
