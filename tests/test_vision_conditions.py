"""Other camera conditions made from labelled photos (vision.conditions), and the reader measured under them."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from device.cli import main as companion
from vision.conditions import KINDS, Condition, ConditionError, parse_condition
from vision.lab.evaluate import evaluate
from vision.lab.render import render_scene
from vision.lab.splits import read_manifest
from vision.recognize import DiceRecognizer, FixedDetector

PHOTOS = Path(__file__).resolve().parent / "data" / "photos"
MANIFEST = PHOTOS / "manifest.jsonl"


@pytest.fixture(scope="module")
def photo() -> np.ndarray:
    image, _ = render_scene(np.random.default_rng(3), size=(200, 160), n_dice=(3, 3), side_range=(30, 36))
    return image


def test_conditions_are_written_kind_colon_amount() -> None:
    assert parse_condition("scale:0.5") == Condition("scale", 0.5)
    assert str(parse_condition("jpeg:40")) == "jpeg:40"
    for kind, (_, lo, hi) in KINDS.items():
        assert parse_condition(f"{kind}:{lo}").amount == lo and parse_condition(f"{kind}:{hi}").amount == hi
    for text, says in [
        ("scale", "KIND:AMOUNT"),
        ("zoom:2", "known kind"),
        ("blur:soft", "not a number"),
        ("scale:0.1", "from 0.2 to 4"),
        ("jpeg:101", "from 5 to 100"),
        ("noise:nan", "from 1 to 50"),
    ]:
        with pytest.raises(ConditionError, match=says):
            parse_condition(text)


def test_each_condition_changes_the_photo_as_it_says(photo: np.ndarray) -> None:
    h, w = photo.shape[:2]
    half = parse_condition("scale:0.5").apply(photo)
    assert half.shape == (h // 2, w // 2, 3)
    assert parse_condition("scale:2").apply(photo).shape == (2 * h, 2 * w, 3)
    grey = photo.astype(np.float64).mean()
    assert parse_condition("exposure:0.5").apply(photo).mean() == pytest.approx(grey / 2, abs=1)
    assert parse_condition("exposure:2").apply(photo).max() == 255, "over-exposed pixels clip"
    warm = parse_condition("white:1.25").apply(photo).astype(np.float64)
    b, g, r = (photo[..., i].astype(np.float64).mean() for i in range(3))
    assert warm[..., 0].mean() < b and warm[..., 1].mean() == pytest.approx(g) and warm[..., 2].mean() > r
    def sharpness(image: np.ndarray) -> float:
        return float(np.abs(np.diff(image.astype(np.int64), axis=1)).mean())

    assert sharpness(parse_condition("blur:2").apply(photo)) < 0.7 * sharpness(photo)
    noisy = parse_condition("noise:10")
    a, again, other = noisy.apply(photo, "a.jpg"), noisy.apply(photo, "a.jpg"), noisy.apply(photo, "b.jpg")
    assert np.array_equal(a, again) and not np.array_equal(a, other), "the noise is the photo's own, every run"
    assert 8 < (a.astype(np.float64) - photo).std() < 12
    squeezed = parse_condition("jpeg:10").apply(photo)
    assert squeezed.shape == photo.shape and 0 < np.abs(squeezed.astype(np.int64) - photo).mean() < 20
    assert photo.dtype == np.uint8 and all(
        c.apply(photo).dtype == np.uint8 for c in map(parse_condition, ("exposure:3", "white:2", "noise:50"))
    )


def test_only_a_rescaling_moves_the_labelled_boxes() -> None:
    record = {"image": "images/a.jpg", "width": 640, "height": 480, "dice": [{"box": [10, 20, 50, 60], "value": 3}]}
    half = parse_condition("scale:0.5").record(record)
    assert half["dice"] == [{"box": [5.0, 10.0, 25.0, 30.0], "value": 3}]
    assert (half["width"], half["height"]) == (320, 240)
    assert record["dice"][0]["box"] == [10, 20, 50, 60], "the manifest's record is not changed"
    assert parse_condition("blur:1").record(record) is record


def test_the_reader_is_measured_on_the_photos_as_changed() -> None:
    records = list(read_manifest(MANIFEST))
    reader = DiceRecognizer(detector=FixedDetector())
    as_taken = evaluate(records, reader, truth_boxes=True).summary()
    assert as_taken["matched"] == as_taken["dice"] == 55
    # Behind the detector the dice found in the smaller photo are matched to the labels: they moved with it.
    smaller = evaluate(records, DiceRecognizer(), condition=parse_condition("scale:0.75")).summary()
    assert smaller["found"] >= 53 and smaller["matched"] >= 53
    # Photos squeezed to nothing leave little to read: the changed photo is what the reader saw.
    ruined = evaluate(records, reader, truth_boxes=True, condition=parse_condition("jpeg:5")).summary()
    assert ruined["unsure"] > as_taken["unsure"]


def test_eval_dice_takes_a_condition(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "eval"
    args = ["eval-dice", str(MANIFEST), "--truth-boxes", "--out", str(out), "--condition", "scale:0.75"]
    assert companion(args) == 0
    assert capsys.readouterr().out.startswith("wrote results.csv")
    summary = json.loads((out / "summary.json").read_text())
    assert summary["condition"] == "scale:0.75" and summary["matched"] == 55
    printed = companion_output(["eval-dice", str(MANIFEST), "--truth-boxes", "--condition", "exposure:0.8"], capsys)
    assert printed.startswith("photos as taken under exposure:0.8\nimages 4, dice 55")
    assert companion(["eval-dice", str(MANIFEST), "--condition", "zoom:2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "zoom:2" in err and "scale (0.2..4)" in err
    assert companion(["eval-dice", str(MANIFEST), "--condition", "blur:1", "--update-card"]) == 2
    assert "--update-card" in capsys.readouterr().err


def companion_output(args: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert companion(args) == 0
    return capsys.readouterr().out


def test_a_condition_image_stays_readable_by_opencv(tmp_path: Path, photo: np.ndarray) -> None:
    out = tmp_path / "x.png"
    assert cv2.imwrite(str(out), parse_condition("jpeg:30").apply(photo))
    assert cv2.imread(str(out)) is not None
