"""The detector's training data (augmentation keeps labels on their dice, targets sit on die centres)
and the evaluation's matching; none of it needs torch."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.detect import STRIDE
from vision.lab.detect_eval import iou, match, summarise
from vision.lab.detect_train import CROP, Sample, augment, main, rendered_samples, targets


def _sample_with_squares() -> tuple[Sample, np.ndarray]:
    """A dark picture with bright squares exactly where its labels say (one square rotated 30 degrees)."""
    image = np.full((480, 640, 3), 30, np.uint8)
    boxes = [(100.0, 80.0, 140.0, 120.0, np.nan), (300.0, 200.0, 350.0, 250.0, np.nan), (500, 380, 540, 420, np.nan)]
    for x0, y0, x1, y1, _ in boxes:
        cv2.rectangle(image, (int(x0), int(y0)), (int(x1) - 1, int(y1) - 1), (220, 220, 220), -1)
    ok, buf = cv2.imencode(".png", image)
    assert ok
    arr = np.array(boxes, np.float32)
    return Sample("test", arr, jpeg=buf.tobytes()), arr


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_augmented_labels_stay_on_their_squares(seed: int) -> None:
    sample, _ = _sample_with_squares()
    crop, boxes = augment(sample, np.random.default_rng(seed))
    assert crop.shape == (CROP, CROP, 3) and crop.dtype == np.uint8
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
    for x0, y0, x1, y1, _ in boxes:
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        if not (2 <= cx < CROP - 2 and 2 <= cy < CROP - 2):
            continue
        # The middle of every label box is the bright square, brighter than just outside the box.
        inside = grey[int(cy), int(cx)]
        ring = [grey[int(min(max(y, 0), CROP - 1)), int(min(max(x, 0), CROP - 1))]
                for x, y in ((x0 - 4, cy), (x1 + 3, cy), (cx, y0 - 4), (cx, y1 + 3))
                if 0 <= x < CROP and 0 <= y < CROP]
        if ring:
            assert inside > max(ring), (seed, boxes)


def test_flips_mirror_the_known_angle() -> None:
    image = np.full((200, 200, 3), 30, np.uint8)
    _, buf = cv2.imencode(".png", image)
    sample = Sample("render", np.array([[80, 80, 120, 120, 20.0]], np.float32), jpeg=buf.tobytes())
    seen = set()
    for seed in range(40):
        _, boxes = augment(sample, np.random.default_rng(seed))
        seen.add(round(float(boxes[0, 4])) % 90)
    assert seen == {20, 70}


def test_targets_peak_at_the_die_centre() -> None:
    boxes = np.array([[40, 40, 80, 72, 30.0], [100, 10, 120, 30, np.nan], [-50, -50, -10, -10, np.nan]], np.float32)
    t = targets(boxes)
    s = CROP // STRIDE
    assert t["heat"].shape == (1, s, s)
    ys, xs = np.nonzero(t["heat"][0] == 1.0)
    assert sorted(zip(xs.tolist(), ys.tolist(), strict=True)) == [(15, 14), (27, 5)]
    # Offset, log size and angle at the first die's centre cell reproduce its box.
    cx = (15 + 0.5 + t["reg"][0, 14, 15]) * STRIDE
    cy = (14 + 0.5 + t["reg"][1, 14, 15]) * STRIDE
    assert (cx, cy) == (pytest.approx(60), pytest.approx(56))
    assert math.exp(t["reg"][2, 14, 15]) * STRIDE == pytest.approx(40)
    assert math.exp(t["reg"][3, 14, 15]) * STRIDE == pytest.approx(32)
    assert math.degrees(math.atan2(t["reg"][5, 14, 15], t["reg"][4, 14, 15])) / 4 == pytest.approx(30)
    assert t["amask"][0, 14, 15] == 1 and t["amask"][0, 5, 27] == 0
    assert t["mask"].sum() == 2  # the die outside the crop adds nothing


def test_iou_and_one_to_one_matching() -> None:
    assert iou((0, 0, 10, 10), (0, 0, 10, 10)) == 1
    assert iou((0, 0, 10, 10), (5, 0, 15, 10)) == pytest.approx(1 / 3)
    assert iou((0, 0, 10, 10), (20, 20, 30, 30)) == 0
    truth = [(0, 0, 10, 10), (10, 0, 20, 10)]
    found = [(1, 0, 11, 10), (0, 0, 10, 10), (30, 30, 40, 40)]
    # The strongest box takes its label; the weaker duplicate overlaps the other label too little.
    assert match(found, [0.5, 0.9, 0.8], truth) == [(1, 0)]
    assert match(found, [0.9, 0.5, 0.8], truth) == [(0, 0)]
    assert summarise(9, 1, 0) == {"precision": 0.9, "recall": 1.0}
    assert summarise(0, 0, 0) == {"precision": 1.0, "recall": 1.0}


def test_folding_batch_norm_keeps_the_network_and_onnx_weights_load_back(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed")
    pytest.importorskip("onnx", reason="the train extra (onnx) is not installed")
    import warnings

    from vision.lab.detect_train import build_net, export, fold, load_onnx

    torch.manual_seed(0)
    net = build_net()
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):  # give every batch norm non-trivial statistics
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.5, 0.5)
    net.eval()
    x = torch.rand(1, 3, 64, 96)
    folded = fold(net)
    folded.eval()
    assert torch.allclose(net(x), folded(x), atol=1e-4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's exporter warns about its own deprecations
        export(folded, tmp_path / "m.onnx")
    loaded = load_onnx(tmp_path / "m.onnx")
    loaded.eval()
    assert torch.allclose(folded(x), loaded(x), atol=1e-4)


def test_rendered_scenes_with_tokens_label_only_the_dice() -> None:
    plain, with_tokens = rendered_samples(1, 7), rendered_samples(1, 7, tokens=4)
    # The first scene places its dice before its tokens: the same dice, labelled alike (and no token labelled).
    assert np.array_equal(plain[0].boxes, with_tokens[0].boxes) and len(plain[0].boxes)
    assert not np.array_equal(plain[0].image(), with_tokens[0].image())
    assert rendered_samples(1, 7, tokens=0)[0].jpeg == plain[0].jpeg, "no tokens: the recipe's scenes as before"


@pytest.mark.parametrize(("option", "bad", "said"), [
    ("--tokens", "-1", "takes a count (0 or more)"),
    ("--tokens", "many", "takes a count (0 or more)"),
    ("--faint-pips", "1.5", "takes a share from 0 to 1"),
    ("--swirled", "half", "takes a share from 0 to 1"),
])
def test_the_command_line_refuses_bad_scene_options(
    option: str, bad: str, said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stop:  # before anything is read or trained
        main([option, bad])
    assert stop.value.code == 2
    assert f"{option}: {said}, not '{bad}'" in capsys.readouterr().err
