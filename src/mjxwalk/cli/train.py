"""mjxwalk-train (training lands with the training issue)."""

from __future__ import annotations

import sys

from mjxwalk.cli._common import not_available


def main(argv: list[str] | None = None) -> int:
    return not_available("mjxwalk-train", "the training work (Brax PPO, checkpoints, export)")


if __name__ == "__main__":
    sys.exit(main())
