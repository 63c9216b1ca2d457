"""Training end to end: run directory, checkpoints, resume, budget, divergence, CLI.

Scale-out (two devices, two processes) is in test_run_scale_out.py: those tests run in
subprocesses of their own, and a file of their own lets pytest-xdist run them beside this one."""

import dataclasses
import json
import os
import shutil
import subprocess
import sys

import jax
import numpy as np
import pytest

import mjxwalk
from mjxwalk.contract import PolicyContract
from mjxwalk.training import checkpoint, ppo
from mjxwalk.training.config import smoke
from mjxwalk.training.run import TrainingDiverged, env_keys, train
from mjxwalk.wrappers import model_keys


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs") / "smoke"
    return train(smoke(), out=out, show_progress=False)


def test_every_env_of_every_device_and_host_gets_a_robot_of_its_own():
    """Models once came from one seed per host, the same on each of its devices."""
    hosts = [env_keys(0, process, local_devices=2, envs_per_device=4, start_steps=0)
             for process in (0, 1)]
    for reset_keys, models in hosts:
        assert reset_keys.shape == models.shape == (2, 4, 2)
    robots = np.concatenate([np.asarray(m).reshape(-1, 2) for _, m in hosts])
    assert len({tuple(k) for k in robots}) == 16
    # one device, one host: the robots the seed gave before
    _, models = env_keys(5, 0, local_devices=1, envs_per_device=8, start_steps=0)
    np.testing.assert_array_equal(models[0], model_keys(5, 8))
    # a resume starts fresh episodes on the same robots
    resumed_resets, resumed_models = env_keys(0, 1, 2, 4, start_steps=4096)
    np.testing.assert_array_equal(resumed_models, hosts[1][1])
    assert not np.any(np.all(np.asarray(resumed_resets) == np.asarray(hosts[1][0]), axis=-1))


def test_run_directory_has_everything(smoke_run):
    d = smoke_run.run_dir
    cfg = smoke()
    iterations = cfg.num_timesteps // cfg.env_steps_per_iteration
    assert smoke_run.env_steps == cfg.num_timesteps and smoke_run.stopped_by == "steps"
    rows = [json.loads(l) for l in (d / "metrics.jsonl").read_text().splitlines()]
    assert len(rows) == iterations
    assert [r["env_steps"] for r in rows] == [cfg.env_steps_per_iteration * (i + 1)
                                              for i in range(iterations)]
    for key in ("loss/total_loss", "loss/policy_loss", "env/reward", "env/falls",
                "env/reward/tracking_lin_vel", "env_steps_per_s", "sim_s_per_wall_s"):
        assert key in rows[-1], key
    assert "compile_s" in rows[0]
    assert list(d.glob("events.out.tfevents.*")), "no TensorBoard event file"
    assert (d / "report.png").stat().st_size > 1000
    saved = json.loads((d / "config.json").read_text())
    assert saved["train"]["num_envs"] == cfg.num_envs and "commands" in saved["env"]
    contract = PolicyContract.from_json((d / "contract.json").read_text())
    assert contract.robot == "kidbot" and contract.nu == 18
    assert (d / "policy_params.msgpack").stat().st_size > 1000


def test_smoke_run_learns_from_twice_the_samples(smoke_run, walk_env):
    """The smoke preset augments with mirror images, as the cpu and gpu presets do."""
    assert smoke().symmetry_augmentation
    # the observation normalizer saw every collected step and its mirror image
    assert int(smoke_run.state.normalizer_params.count) == 2 * smoke().num_timesteps
    # a normalizer fed both halves is symmetric: the mirrored mean is the mean
    mean = smoke_run.state.normalizer_params.mean["state"]
    np.testing.assert_allclose(walk_env.mirror.state.apply(mean), mean, atol=1e-5)


def _assert_same(a, b):
    la, lb = jax.tree.leaves(a), jax.tree.leaves(b)
    assert len(la) == len(lb)
    for x, y in zip(la, lb):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def test_discount_schedule_switches_mid_run(smoke_run, tmp_path):
    """Iterations before the switch train exactly as the constant-discount run; the first
    one after it uses the new discount: its value loss moves far (0.5 halves the horizon
    the critic's targets sum over), and the metrics say which discount each one used."""
    cfg = smoke()
    switch = 2 * cfg.env_steps_per_iteration
    result = train(dataclasses.replace(cfg, discounting_final=0.5,
                                       discounting_switch_steps=switch),
                   out=tmp_path / "switched", show_progress=False)
    rows = [json.loads(l) for l in (result.run_dir / "metrics.jsonl").read_text().splitlines()]
    base = [json.loads(l) for l in (smoke_run.run_dir / "metrics.jsonl").read_text().splitlines()]
    assert [r["train/discounting"] for r in rows] == pytest.approx([0.97, 0.97, 0.5, 0.5])
    assert [r["train/discounting"] for r in base] == pytest.approx([0.97] * 4)
    for r, b in zip(rows[:2], base[:2]):  # same seed, same discount: the same updates
        assert r["loss/v_loss"] == pytest.approx(b["loss/v_loss"], rel=1e-4)
    assert abs(rows[2]["loss/v_loss"] - base[2]["loss/v_loss"]) > 0.1 * base[2]["loss/v_loss"]


def test_checkpoint_restores_the_whole_state(smoke_run):
    mgr = checkpoint.manager(smoke_run.run_dir / "checkpoints", 3)
    step, restored = checkpoint.restore(mgr, smoke_run.state)
    assert step == smoke_run.env_steps
    # parameters, Adam moments and count, normalizer statistics, step counter and rng
    _assert_same(restored, smoke_run.state)
    cfg = smoke()
    updates = cfg.num_timesteps // cfg.env_steps_per_iteration * cfg.num_minibatches * \
        cfg.num_updates_per_batch
    assert int(restored.optimizer_state[1][0].count) == updates  # Adam's state came back
    assert float(np.asarray(restored.normalizer_params.std["state"]).min()) > 0


def _observation(env):
    """An observation of `env`'s shapes, for a policy to act on. Random values: an env reset
    outside jit runs MJX op by op, minutes on a CPU, and these tests need no physics."""
    keys = jax.random.split(jax.random.PRNGKey(0), len(env.observation_size))
    return {name: jax.random.normal(key, shape)
            for key, (name, shape) in zip(keys, sorted(env.observation_size.items()))}


def test_load_run_rebuilds_the_final_state(smoke_run):
    from mjxwalk.training.run import load_run

    config, env, make_policy, step, state = load_run(smoke_run.run_dir)
    assert config == smoke() and step == smoke_run.env_steps and env.action_size == 18
    _assert_same(state, smoke_run.state)
    action, _ = make_policy((state.normalizer_params, state.params.policy, state.params.value),
                            deterministic=True)(_observation(env), jax.random.PRNGKey(1))
    assert action.shape == (18,)


def test_load_run_at_a_kept_step_and_not_at_another(smoke_run):
    from mjxwalk.training.checkpoint import CheckpointError
    from mjxwalk.training.run import load_run

    *_, step, state = load_run(smoke_run.run_dir, at_step=smoke_run.env_steps)
    assert step == smoke_run.env_steps
    _assert_same(state, smoke_run.state)
    with pytest.raises(CheckpointError, match=rf"no checkpoint at step 12; it kept "
                                              rf"{smoke_run.env_steps}$"):
        load_run(smoke_run.run_dir, at_step=12)


def _without_checkpoints(run_dir, to):
    """What a shipped policy keeps of a run (models/policies/<name>/)."""
    from mjxwalk.policies import RUN_FILES

    to.mkdir()
    for name in RUN_FILES:
        shutil.copy(run_dir / name, to / name)
    return to


def test_load_run_without_checkpoints_acts_as_the_final_checkpoint(smoke_run, tmp_path):
    from mjxwalk.training.run import load_run

    kept = _without_checkpoints(smoke_run.run_dir, tmp_path / "kept")
    config, env, make_policy, step, state = load_run(kept)
    assert config == smoke() and step == smoke_run.env_steps
    _assert_same((state.normalizer_params, state.params.policy),
                 (smoke_run.state.normalizer_params, smoke_run.state.params.policy))
    obs, key = _observation(env), jax.random.PRNGKey(1)
    acted = [make_policy((s.normalizer_params, s.params.policy, s.params.value),
                         deterministic=True)(obs, key)[0] for s in (state, smoke_run.state)]
    np.testing.assert_array_equal(*acted)
    with pytest.raises(checkpoint.CheckpointError,
                       match=r"kept no checkpoints, so none at step 12$"):
        load_run(kept, at_step=12)
    assert not (kept / "checkpoints").exists(), "loading a shipped policy wrote into it"


@pytest.mark.parametrize("damage, error, message", [
    ("truncated", "ConfigError", r"policy_params.msgpack: not a policy file \("),
    ("three layers", "ConfigError", r"policy_params.msgpack: its arrays do not fit the network "
                                    r"this run's config builds \(they differ at \['policy'\]"),
    ("wider layers", "ConfigError", r"policy_params.msgpack: its arrays do not fit the network "
                                    r"this run's config builds \(they differ at \['policy'\]"),
    ("other observation", "ConfigError", r"policy_params.msgpack: its arrays do not fit the "
                                         r"network .*\(they differ at \['normalizer'\]"),
    ("no params", "CheckpointError", r"no checkpoints and no policy_params.msgpack"),
    ("no summary", "CheckpointError", r"no checkpoints and no summary.json"),
    ("summary without steps", "ConfigError", r"summary.json: not a run's summary \(KeyError"),
])
def test_load_run_without_checkpoints_refuses_a_damaged_policy_by_name(
        smoke_run, tmp_path, damage, error, message):
    from mjxwalk.errors import ConfigError
    from mjxwalk.training.checkpoint import CheckpointError
    from mjxwalk.training.run import _write_policy, build_env, load_run

    kept = _without_checkpoints(smoke_run.run_dir, tmp_path / "kept")
    params = kept / "policy_params.msgpack"
    if damage == "truncated":
        params.write_bytes(params.read_bytes()[: params.stat().st_size // 2])
    elif damage in ("three layers", "wider layers", "other observation"):
        other = {"three layers": {"policy_hidden": (32, 32, 32)},
                 "wider layers": {"policy_hidden": (48, 48)},
                 "other observation": {"env_overrides": (("history_length", 1),)}}[damage]
        other = dataclasses.replace(smoke(), **other)
        env = build_env(other)
        _write_policy(kept, ppo.init_state(other, ppo.make_networks(other, env),
                                           env.observation_size, jax.random.PRNGKey(0)))
    elif damage == "no params":
        params.unlink()
    elif damage == "no summary":
        (kept / "summary.json").unlink()
    else:
        (kept / "summary.json").write_text('{"stopped_by": "steps"}')
    with pytest.raises({"ConfigError": ConfigError, "CheckpointError": CheckpointError}[error],
                       match=message):
        load_run(kept)


def test_fresh_run_into_a_run_kept_without_checkpoints_is_refused(smoke_run, tmp_path):
    """A shipped policy's folder has no checkpoints to protect it the way a run's do."""
    kept = _without_checkpoints(smoke_run.run_dir, tmp_path / "kept")
    before = {p.name: p.read_bytes() for p in kept.iterdir()}
    with pytest.raises(checkpoint.CheckpointError, match=r"holds a trained policy kept without "
                                                         r"its checkpoints .*another --out$"):
        train(smoke(), out=kept, show_progress=False)
    assert {p.name: p.read_bytes() for p in kept.iterdir()} == before


def test_load_run_applies_evaluation_overrides_after_the_runs_own(smoke_run, tmp_path):
    from mjxwalk.training.run import load_run

    run = tmp_path / "run"
    shutil.copytree(smoke_run.run_dir, run)
    saved = json.loads((run / "config.json").read_text())
    own = ["latency", {"action_steps": [0, 0], "imu_steps": [1, 1]}]
    saved["train"]["env_overrides"] = [own]  # as if the run had trained with --set latency=...
    (run / "config.json").write_text(json.dumps(saved))
    ours = ("latency", {"action_steps": [1, 1]})
    config, env, *_ = load_run(run, (ours,))
    assert env.config.latency.action_steps == (1, 1)  # ours last: it wins where both set
    assert env.config.latency.imu_steps == (1, 1)  # and the run's own stays where ours is silent
    assert config.env_overrides == (tuple(own), ours)


def test_load_run_refuses_overrides_that_change_the_policy_contract(smoke_run):
    from mjxwalk.errors import ConfigError
    from mjxwalk.training.run import load_run

    with pytest.raises(ConfigError, match=r"overrides of latency, history_length change the "
                                          r"policy contract \(history_length differ\)"):
        load_run(smoke_run.run_dir, (("latency", {"action_steps": [1, 1]}), ("history_length", 5)))


def test_resume_continues_from_the_checkpoint(smoke_run, tmp_path):
    d = tmp_path / "resumed"
    shutil.copytree(smoke_run.run_dir, d)
    cfg = dataclasses.replace(smoke(), num_timesteps=smoke().num_timesteps + 2 * smoke().env_steps_per_iteration)
    result = train(cfg, out=d, resume=True, show_progress=False)
    assert result.env_steps == cfg.num_timesteps
    rows = [json.loads(l) for l in (d / "metrics.jsonl").read_text().splitlines()]
    new = [r["env_steps"] for r in rows if r["env_steps"] > smoke_run.env_steps]
    assert new == [smoke_run.env_steps + smoke().env_steps_per_iteration * i for i in (1, 2)]
    # the optimizer continued: Adam's step count grew by 2 iterations' worth of updates
    count = lambda s: int(s.optimizer_state[1][0].count)
    per_iteration = smoke().num_minibatches * smoke().num_updates_per_batch
    assert count(result.state) == count(smoke_run.state) + 2 * per_iteration
    # the clock continues too: wall_s counts the first leg's training time and this one's
    mgr = checkpoint.manager(d / "checkpoints", 3)
    before = checkpoint.trained_wall_s(mgr, smoke_run.env_steps)
    first = json.loads((smoke_run.run_dir / "summary.json").read_text())
    assert before is not None and 0 < before <= first["wall_s"]
    summary = json.loads((d / "summary.json").read_text())
    assert summary["wall_s"] == pytest.approx(before + summary["leg_wall_s"], abs=0.11)
    assert all(r["wall_s"] > before for r in rows if r["env_steps"] > smoke_run.env_steps)


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="bit-for-bit holds on one CPU")
def test_stopped_and_resumed_run_equals_an_uninterrupted_one(smoke_run, tmp_path):
    """Half the steps, then a resume to the end: the same parameters, optimizer state and
    metrics as training straight through, bit for bit. The training state and every env's
    mid-episode state come back and one CPU is deterministic, so there is no dip."""
    d = tmp_path / "halves"
    half = dataclasses.replace(smoke(), num_timesteps=smoke().num_timesteps // 2)
    train(half, out=d, show_progress=False)
    resumed = train(smoke(), out=d, resume=True, show_progress=False)
    _assert_same(resumed.state, smoke_run.state)
    rows = lambda run_dir: [(r["env_steps"], r["env/reward"], r["loss/total_loss"]) for r in
                            map(json.loads, (run_dir / "metrics.jsonl").read_text().splitlines())]
    assert rows(d) == rows(smoke_run.run_dir)


def test_resume_without_env_states_warns_and_carries_on(smoke_run, tmp_path):
    d = tmp_path / "no_envs"
    shutil.copytree(smoke_run.run_dir, d)
    shutil.rmtree(d / "checkpoints" / str(smoke_run.env_steps) / "envs")  # as older checkpoints are
    cfg = dataclasses.replace(smoke(), num_timesteps=smoke().num_timesteps
                              + smoke().env_steps_per_iteration)
    with pytest.warns(UserWarning, match="fresh episodes: the checkpoint holds no env states"):
        result = train(cfg, out=d, resume=True, show_progress=False)
    assert result.env_steps == cfg.num_timesteps


@pytest.mark.skipif(not os.path.exists("/proc/self/maps"), reason="counts Linux memory maps")
def test_train_releases_what_it_compiled(smoke_run, tmp_path):
    """XLA:CPU maps memory for each compiled kernel. While JAX's caches kept every call's
    programs, each smoke train() added about 9,500 maps and the sixth call in one process
    aborted at Linux's default vm.max_map_count (65,530). 2,000 is a fifth of one call's."""
    import gc

    def maps():
        gc.collect()
        with open("/proc/self/maps") as f:
            return sum(1 for _ in f)

    before = maps()  # after smoke_run, so one-time costs (imports, thread pools) are in
    train(smoke(), out=tmp_path / "again", show_progress=False)
    assert maps() - before < 2000


def test_divergence_stops_and_keeps_the_last_good_checkpoint(smoke_run, tmp_path):
    d = tmp_path / "diverging"
    shutil.copytree(smoke_run.run_dir, d)
    cfg = dataclasses.replace(smoke(), num_timesteps=2 * smoke().num_timesteps,
                              env_overrides=(("rewards", {"alive": float("nan")}),))
    with pytest.raises(TrainingDiverged, match="last good checkpoint is kept"):
        train(cfg, out=d, resume=True, show_progress=False)
    mgr = checkpoint.manager(d / "checkpoints", 3)
    step, restored = checkpoint.restore(mgr, smoke_run.state)
    assert step == smoke_run.env_steps
    _assert_same(restored.params, smoke_run.state.params)


def test_budget_ends_cleanly(tmp_path):
    cfg = dataclasses.replace(smoke(), num_timesteps=10 ** 9, minutes=1e-4)
    result = train(cfg, out=tmp_path / "budget", show_progress=False)
    assert result.stopped_by == "budget"
    assert result.env_steps == smoke().env_steps_per_iteration  # stopped after one iteration
    assert checkpoint.manager(tmp_path / "budget" / "checkpoints", 3).latest_step() == result.env_steps
    assert (tmp_path / "budget" / "policy_params.msgpack").exists()


def test_resume_without_checkpoints(tmp_path):
    with pytest.raises(checkpoint.CheckpointError, match="no checkpoints"):
        train(smoke(), out=tmp_path / "empty", resume=True, show_progress=False)


def test_fresh_run_into_a_run_directory_with_checkpoints_is_refused(smoke_run, tmp_path, capsys):
    """Orbax saves no step at or below the latest one it finds, so a fresh run there would
    never checkpoint and would leave the old run's checkpoints under its own metrics."""
    d = tmp_path / "taken"
    shutil.copytree(smoke_run.run_dir, d)
    kept = {str(p.relative_to(d)): p.stat().st_mtime_ns for p in d.rglob("*")}
    with pytest.raises(checkpoint.CheckpointError,
                       match=f"checkpoints up to {smoke().num_timesteps:,} env steps: continue "
                             "it with --resume"):
        train(smoke(), out=d, show_progress=False)
    from mjxwalk.cli.train import main

    assert main(["--preset", "smoke", "--out", str(d), "--quiet"]) == 2
    assert "already holds a run" in capsys.readouterr().err
    # refused before anything was written: the old run is as it was
    assert {str(p.relative_to(d)): p.stat().st_mtime_ns for p in d.rglob("*")} == kept


def test_cli_smoke_run(tmp_path, capsys):
    from mjxwalk.cli.train import main

    rc = main(["--preset", "smoke", "--steps", "1024", "--out", str(tmp_path / "cli"), "--quiet"])
    assert rc == 0
    assert "done: 1,024 env steps" in capsys.readouterr().out
    rc = main(["--preset", "smoke", "--envs", "48", "--out", str(tmp_path / "bad"), "--quiet"])
    assert rc == 2
    assert "must be a multiple of num_envs" in capsys.readouterr().err


def test_resume_with_other_networks_is_refused(smoke_run, tmp_path):
    d = tmp_path / "other"
    shutil.copytree(smoke_run.run_dir, d)
    cfg = dataclasses.replace(smoke(), policy_hidden=(16,))
    with pytest.raises(checkpoint.CheckpointError, match="policy_hidden"):
        train(cfg, out=d, resume=True, show_progress=False)


def test_killed_run_resumes_from_its_last_checkpoint(smoke_run, tmp_path):
    """SIGKILL in the middle of training (checkpointing every iteration): the finished
    checkpoints stay readable and --resume continues from the newest one."""
    import signal
    import time

    d = tmp_path / "killed"
    cmd = [sys.executable, "-m", "mjxwalk.cli.train", "--preset", "smoke", "--steps", str(10 ** 7),
           "--checkpoint-every-s", "0", "--out", str(d), "--quiet"]
    # the child gets a copy of the compilation cache: JAX writes cache entries in place, so a
    # kill that lands mid-write would leave a truncated entry that aborts the next reader
    cache = tmp_path / "jax_cache"
    if os.path.isdir(os.environ["JAX_COMPILATION_CACHE_DIR"]):
        shutil.copytree(os.environ["JAX_COMPILATION_CACHE_DIR"], cache)
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "JAX_COMPILATION_CACHE_DIR": str(cache)})
    deadline = time.time() + 600
    ckpt = d / "checkpoints"
    while time.time() < deadline:
        done = [p for p in ckpt.glob("[0-9]*")] if ckpt.exists() else []
        if len(done) >= 2:
            break
        assert proc.poll() is None, proc.stderr.read()[-2000:]
        time.sleep(0.2)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    mgr = checkpoint.manager(ckpt, 3)
    latest = mgr.latest_step()
    assert latest is not None and latest >= smoke().env_steps_per_iteration
    step, _ = checkpoint.restore(mgr, smoke_run.state)
    # resumed as a user would, in a new process, with the run's own config (no --preset)
    target = step + smoke().env_steps_per_iteration
    cmd = [sys.executable, "-m", "mjxwalk.cli.train", "--steps", str(target),
           "--out", str(d), "--resume", "--quiet"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900,
                       env={**os.environ, "JAX_COMPILATION_CACHE_DIR": str(cache)})
    assert r.returncode == 0, r.stderr[-3000:]
    assert json.loads((d / "summary.json").read_text())["env_steps"] == target


def test_sigterm_stops_after_the_iteration_with_a_checkpoint_of_it(smoke_run, tmp_path):
    """SIGTERM (a cluster's preemption; Ctrl-C is the same path, tests/training/test_stop.py)
    mid-run with no periodic checkpoint due: the run ends after its iteration with a
    checkpoint of it, the policy and a summary saying why, and exits 143 as a SIGTERM would."""
    import signal
    import time

    d = tmp_path / "stopped"
    cmd = [sys.executable, "-m", "mjxwalk.cli.train", "--preset", "smoke", "--steps", str(10 ** 7),
           "--checkpoint-every-s", "1e9", "--out", str(d), "--quiet"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    metrics, deadline = d / "metrics.jsonl", time.time() + 600
    while not (metrics.exists() and metrics.read_text().count("\n") >= 2):
        assert proc.poll() is None, proc.stderr.read()[-2000:]
        assert time.time() < deadline, "no iteration finished in 600 s"
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 128 + signal.SIGTERM, err[-3000:]
    summary = json.loads((d / "summary.json").read_text())
    assert summary["stopped_by"] == "SIGTERM"
    per_iteration = smoke().env_steps_per_iteration
    assert summary["env_steps"] >= 2 * per_iteration and summary["env_steps"] % per_iteration == 0
    # the iteration it stopped after is logged, checkpointed and exported
    last = json.loads(metrics.read_text().splitlines()[-1])
    assert last["env_steps"] == summary["env_steps"]
    mgr = checkpoint.manager(d / "checkpoints", 3)
    assert list(mgr.all_steps()) == [summary["env_steps"]]
    step, _ = checkpoint.restore(mgr, smoke_run.state)
    assert step == summary["env_steps"]
    assert (d / "policy_params.msgpack").exists()
    assert f"stopped by SIGTERM at {step:,} env steps" in err and "--resume" in err


def test_load_run_refuses_a_run_whose_robot_spec_changed(smoke_run, tmp_path, kidbot_copy):
    from mjxwalk.errors import ConfigError
    from mjxwalk.training.run import load_run

    run = tmp_path / "run"
    shutil.copytree(smoke_run.run_dir, run)
    spec = kidbot_copy / "kidbot.toml"
    spec.write_text(spec.read_text().replace("action_scale = 0.3", "action_scale = 0.5"))
    saved = json.loads((run / "config.json").read_text())
    saved["train"]["robot"] = str(spec)  # as if the run's spec file had been edited since
    (run / "config.json").write_text(json.dumps(saved))
    with pytest.raises(ConfigError, match=r"contract.json: .*\(action_scale differ\).*kidbot.toml"):
        load_run(run)
