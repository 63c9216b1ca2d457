"""How far test_learning's training lifts the return, for choosing its config and threshold.

    python benchmarks/learning_test_margin.py STEPS TAG ['{"field": value, ...}'] > out.json

Trains tests/training/test_learning.py's CONFIG with STEPS env steps and the given
TrainConfig fields replaced, then evaluates the untrained and the trained state, sampling
and deterministic (64 episodes of 4 s each), and prints the four results as JSON.
benchmarks/results/learning_test_margin.json collects the runs behind the test's threshold.
"""

import dataclasses
import json
import sys
import time
from pathlib import Path

import jax

from mjxwalk.training import evaluate, ppo
from mjxwalk.training.run import build_env, train

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "training"))
from test_learning import CONFIG  # noqa: E402


def main(steps: int, tag: str, fields: dict) -> dict:
    config = dataclasses.replace(CONFIG, num_timesteps=steps, **fields)
    started = time.time()
    result = train(config, out=f"/tmp/learning_test_margin/{tag}", show_progress=False)
    out = {"tag": tag, "steps": steps, "fields": fields, "train_s": time.time() - started}
    env = build_env(config)
    networks = ppo.make_networks(config, env)
    untrained = ppo.init_state(config, networks, env.observation_size,
                               jax.random.PRNGKey(config.seed))
    for name, state in (("untrained", untrained), ("trained", result.state)):
        for deterministic in (False, True):
            out[f"{name}_{'det' if deterministic else 'sto'}"] = evaluate.evaluate(
                env, result.make_policy, state, deterministic=deterministic)
    return out


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]), sys.argv[2],
                          json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}), indent=1))
