"""The face model's trainer (vision.read_train): its data makers need no torch; its network and export do
(those tests are skipped without the ``train`` extra)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from vision.read_train import CHANNELS, NOT_A_DIE, fold_of, jittered_candidate, rendered_crops
from vision.splits import split_of


@pytest.mark.parametrize("size", sorted(CHANNELS))
def test_rendered_crops_have_the_asked_size_and_face_labels(size: int) -> None:
    crops, labels = rendered_crops(60, np.random.default_rng(0), size=size, faint_pips=0.5)
    assert crops.shape == (60, size, size, 3) and crops.dtype == np.uint8
    assert labels.shape == (60,) and set(labels.tolist()) <= set(range(6)) and NOT_A_DIE not in labels
    again, _ = rendered_crops(60, np.random.default_rng(0), size=size, faint_pips=0.5)
    assert np.array_equal(crops, again), "the same seed makes the same crops"
    marbled, _ = rendered_crops(60, np.random.default_rng(0), size=size, faint_pips=0.5, swirled=1.0)
    assert marbled.shape == crops.shape and not np.array_equal(marbled, crops), "swirled dice are drawn when asked"
    clear, _ = rendered_crops(60, np.random.default_rng(0), size=size, faint_pips=0.5, translucent=1.0)
    assert clear.shape == crops.shape and not np.array_equal(clear, crops), "translucent dice are drawn when asked"


def test_jittered_candidates_stay_on_the_die() -> None:
    rng = np.random.default_rng(1)
    box = (100.0, 100.0, 140.0, 140.0)
    for _ in range(200):
        c = jittered_candidate(rng, box, 10.0)
        assert abs(c.centre[0] - 120) < 0.25 * c.side and abs(c.centre[1] - 120) < 0.25 * c.side
        assert 0.8 * 40 / 1.2 < c.side < 1.2 * 40


def test_the_tune_fold_is_part_of_the_train_split_only() -> None:
    names = [f"images/IMG_{i:04d}.jpg" for i in range(400)]
    folds = {name: fold_of(name) for name in names}
    assert all((fold == "val") == (split_of(name) == "val") for name, fold in folds.items())
    tune = sum(fold == "tune" for fold in folds.values()) / sum(fold != "val" for fold in folds.values())
    assert 0.15 < tune < 0.35


@pytest.mark.parametrize(("size", "channels"), [(32, None), (48, None), (32, (8, 16, 16, 24))])
def test_the_network_exports_to_the_same_maths(tmp_path: Path, size: int, channels: tuple | None) -> None:
    torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed")
    pytest.importorskip("onnx", reason="the train extra (onnx) is not installed")
    from vision.read_train import _check_export, build_model, export

    torch.manual_seed(0)
    model = build_model(size, channels)
    crops = np.random.default_rng(2).integers(0, 256, (5, size, size, 3), dtype=np.uint8)
    path = tmp_path / "face.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's exporter warns about its own deprecations
        export(model, path, size)
    _check_export(model, path, crops)  # raises when ONNX Runtime and torch disagree
    with pytest.raises(ValueError, match="no face network for 40 px"):
        build_model(40)


def test_the_command_line_refuses_bad_channels_before_any_work(capsys: pytest.CaptureFixture[str]) -> None:
    from vision.read_train import options

    assert options().parse_args(["--channels", "8,16,16,24"]).channels == (8, 16, 16, 24)
    for bad in ("8,16,24", "a,b,c,d", "8,16,0,24"):
        with pytest.raises(SystemExit):
            options().parse_args(["--channels", bad])
        assert "--channels takes four positive whole numbers" in capsys.readouterr().err
