"""The reader the device runs needs nothing of vision's lab (issue 25): reading dice, fusing frames and naming
colours import neither the renderer, the trainers, the evaluation, the tuning tools nor torch."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

LAB = {"vision.render", "vision.read_train", "vision.read_data", "vision.read_network", "vision.read_export",
       "vision.detect_train", "vision.train", "vision.evaluate",
       "vision.detect_eval", "vision.tune_check", "vision.yolo_ref", "vision.colour_fit", "torch"}  # fmt: skip


def test_the_runtime_reader_imports_no_lab_module() -> None:
    code = (
        "import json, sys\n"
        "import vision.recognize, vision.fuse, vision.colour, vision.detect\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('vision', 'torch')))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=Path(__file__).parent.parent
    )
    loaded = set(json.loads(out.stdout))
    assert {"vision.recognize", "vision.fuse", "vision.faces", "vision.types"} <= loaded
    assert not loaded & LAB, sorted(loaded & LAB)
