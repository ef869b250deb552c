"""The reader the device runs needs nothing of vision's lab (issue 25): `vision.lab` holds the renderers, the
trainers, the evaluation, the tuning tools, the benchmarks and the YOLO reference, and neither the runtime
modules nor the device's own (the appliance, the game adapters, the web server) import it or torch."""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import vision
import vision.lab

ROOT = Path(__file__).parent.parent
RUNTIME = sorted(f"vision.{m.name}" for m in pkgutil.iter_modules(vision.__path__) if not m.ispkg)
DEVICE = ["device.appliance", "device.session", "device.stability", "device.webserver", "device.tables.pasa",
          "device.tables.pyradice", "device.tables.pyramido", "device.tables.dicetreasure", "device.teaching",
          "device.zones", "device.tablesetup", "device.sources"]  # fmt: skip


def loaded_by(modules: list[str]) -> set[str]:
    code = (
        "import importlib, json, sys\n"
        f"for name in {modules!r}: importlib.import_module(name)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('vision', 'torch')))))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return set(json.loads(out.stdout))


def lab_of(loaded: set[str]) -> list[str]:
    return sorted(m for m in loaded if m == "torch" or m.startswith("torch.") or m.startswith("vision.lab"))


def test_the_runtime_modules_import_no_lab_module() -> None:
    assert {"vision.recognize", "vision.fuse", "vision.change", "vision.pyradice_read"} <= set(RUNTIME)
    loaded = loaded_by(RUNTIME)
    assert {"vision.recognize", "vision.faces", "vision.types"} <= loaded
    assert not lab_of(loaded), lab_of(loaded)


def test_the_device_imports_no_lab_module() -> None:
    loaded = loaded_by(DEVICE)
    assert "vision.registration" in loaded
    assert not lab_of(loaded), lab_of(loaded)


def test_the_lab_holds_the_renderers_trainers_and_evaluation() -> None:
    lab = {m.name for m in pkgutil.iter_modules(vision.lab.__path__)}
    assert {"render", "read_train", "detect_train", "evaluate", "yolo_ref", "pyradice_render", "bench"} <= lab
    assert not lab & {m.rsplit(".", 1)[1] for m in RUNTIME}, "a module is both runtime and lab"
