"""mjxwalk-run (the onboard runner lands with the deployment work)."""

from __future__ import annotations

import sys

from mjxwalk.cli._common import not_available


def main(argv: list[str] | None = None) -> int:
    return not_available("mjxwalk-run", "the onboard runner (ONNX policy + Dynamixel bus)")


if __name__ == "__main__":
    sys.exit(main())
