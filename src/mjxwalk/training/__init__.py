"""Training: PPO from brax's parts, with checkpoints that lose nothing."""
