"""Checkpoint items on their own: env states saved beside the training state, and refused
(with the reason) when they do not fit the run being resumed."""

import numpy as np
import pytest

from mjxwalk.training import checkpoint


@pytest.fixture
def mgr(tmp_path):
    return checkpoint.manager(tmp_path / "checkpoints", keep=3)


STATE = {"params": np.arange(4, dtype=np.float32)}
ENVS = {"qpos": np.random.default_rng(0).normal(size=(1, 8, 5)).astype(np.float32),
        "rng": np.arange(16, dtype=np.uint32).reshape(1, 8, 2), "step": np.zeros((1, 8), np.int32),
        "efc_force": np.zeros((1, 8, 0), np.float32)}  # MuJoCo has empty buffers; orbax refuses them


def test_env_states_come_back_exactly(mgr):
    checkpoint.save(mgr, 10, STATE, ENVS)
    step, state = checkpoint.restore(mgr, {"params": np.zeros(4, np.float32)})
    envs, why_not = checkpoint.restore_envs(_reopened(mgr), step,
                                            {k: np.zeros_like(v) for k, v in ENVS.items()})
    assert step == 10 and why_not is None
    np.testing.assert_array_equal(state["params"], STATE["params"])
    for key, value in ENVS.items():
        np.testing.assert_array_equal(envs[key], value)
        assert envs[key].dtype == value.dtype


def _walk_envs(qpos, body_mass):
    from brax.envs.base import State

    zeros = np.zeros((1, 8), np.float32)
    return State(pipeline_state={"qpos": qpos}, obs=zeros, reward=zeros, done=zeros, metrics={},
                 info={"steps": zeros + 3, "model": {"body_mass": body_mass}})


def test_env_states_come_back_on_the_robots_the_resumed_run_draws(mgr):
    """A checkpoint keeps the episodes, not the robots (`info['model']`): a resume whose
    randomization config changed trains on the robots that config draws, in the episodes
    that were running; and a checkpoint of episodes only (written before robots rode in
    the env state) fits as well."""
    saved = _walk_envs(ENVS["qpos"], np.full((1, 8, 3), 1.0, np.float32))
    checkpoint.save(mgr, 10, STATE, saved)
    checkpoint.save(mgr, 20, STATE, saved.replace(info={"steps": saved.info["steps"]}))
    fresh = _walk_envs(np.zeros_like(ENVS["qpos"]), np.full((1, 8, 3), 2.0, np.float32))
    for step in (10, 20):
        envs, why_not = checkpoint.restore_envs(_reopened(mgr), step, fresh)
        assert why_not is None
        np.testing.assert_array_equal(envs.pipeline_state["qpos"], ENVS["qpos"])
        np.testing.assert_array_equal(envs.info["steps"], 3.0)
        np.testing.assert_array_equal(envs.info["model"]["body_mass"], 2.0)


def test_checkpoint_without_env_states_says_so(mgr):
    checkpoint.save(mgr, 10, STATE)
    envs, why_not = checkpoint.restore_envs(mgr, 10, ENVS)
    assert envs is None and "no env states" in why_not


def _reopened(mgr):
    """The checkpoints as a resumed run sees them: a manager of a new process, which has
    written nothing itself."""
    return checkpoint.manager(mgr.directory, keep=3)


def test_env_states_of_another_size_are_refused(mgr):
    checkpoint.save(mgr, 10, STATE, ENVS)
    more_envs = {**ENVS, "qpos": np.zeros((1, 16, 5), np.float32)}
    envs, why_not = checkpoint.restore_envs(_reopened(mgr), 10, more_envs)
    assert envs is None and "[1, 8, 5]" in why_not and "[1, 16, 5]" in why_not
    other_layout = {**ENVS, "extra": np.zeros(3)}
    envs, why_not = checkpoint.restore_envs(_reopened(mgr), 10, other_layout)
    assert envs is None and "do not fit this run" in why_not
    assert "it holds 3 arrays, this run has 4" in why_not  # counted, not orbax's key list


def test_env_states_of_another_dtype_are_refused(mgr):
    """orbax itself would cast them on restore, and the run would go on with wrong states."""
    checkpoint.save(mgr, 10, STATE, ENVS)
    envs, why_not = checkpoint.restore_envs(_reopened(mgr), 10,
                                            {**ENVS, "step": np.zeros((1, 8), np.float32)})
    assert envs is None and "int32[1, 8]" in why_not and "float32[1, 8]" in why_not


def test_training_state_of_other_networks_is_refused(mgr):
    checkpoint.save(mgr, 10, STATE, ENVS)
    with pytest.raises(checkpoint.CheckpointError,
                       match=r"does not match.*\[.params.\] is saved as float32\[4\], this run.s is float32\[7\]"):
        checkpoint.restore(mgr, {"params": np.zeros(7, np.float32)})


def test_trained_wall_time_comes_back(mgr):
    checkpoint.save(mgr, 10, STATE, ENVS, wall_s=1234.5)
    checkpoint.save(mgr, 20, STATE, ENVS)  # as checkpoints from before it was recorded
    assert checkpoint.trained_wall_s(mgr, 10) == 1234.5
    assert checkpoint.trained_wall_s(mgr, 20) is None


def test_saved_steps_lists_finished_checkpoints_only(mgr, tmp_path):
    assert checkpoint.saved_steps(tmp_path / "nowhere") == []
    checkpoint.save(mgr, 20, STATE)
    checkpoint.save(mgr, 40, STATE)
    # a save cut off mid-write leaves orbax's temporary folder, which is no checkpoint
    (tmp_path / "checkpoints" / "60.orbax-checkpoint-tmp-1").mkdir()
    assert checkpoint.saved_steps(tmp_path / "checkpoints") == [20, 40] == mgr.all_steps()
