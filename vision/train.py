"""``make train``: train every model the device ships, in order, reproducibly (fixed seeds).

Needs the ``train`` extra (torch, CPU). Each trainer writes ``models/NAME.onnx`` and its card.
"""

from __future__ import annotations

import importlib
import sys

TRAINERS: tuple[str, ...] = ("vision.detect_train", "vision.read_train")


def main(argv: list[str] | None = None) -> int:
    for name in TRAINERS:
        module = importlib.import_module(name)
        status = int(module.main(argv or []) or 0)
        if status:
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
