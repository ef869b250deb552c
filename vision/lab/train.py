"""``make train``: train every model the device ships, in order, reproducibly (fixed seeds).

Needs the ``train`` extra (torch, CPU). Each trainer writes ``models/NAME.onnx`` and its card.
"""

from __future__ import annotations

import importlib
import sys

TRAINERS: tuple[str, ...] = ("vision.lab.detect_train", "vision.lab.read_train", "vision.lab.read_tilt")


def main(argv: list[str] | None = None) -> int:
    from vision.lab.read_train import missing_modules

    missing = missing_modules(float32=False)
    if missing:  # said now, not as a traceback from the first trainer's imports
        print(f"train: {missing}; install the train extra (pip install -e '.[train]')", file=sys.stderr)
        return 2
    for name in TRAINERS:
        module = importlib.import_module(name)
        status = int(module.main(argv or []) or 0)
        if status:
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
