"""The recipe comparison (``python -m vision.lab.tune_check``) on a small made-up tune fold of rendered photos."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from models import MODELS_DIR
from vision.conditions import parse_condition
from vision.lab.evaluate import truth_candidates
from vision.lab.render import render_scene
from vision.lab.splits import fold_of
from vision.lab.tune_check import (
    MeanOfModels,
    header,
    held_out_detector,
    load_faces,
    main,
    measure,
    recipe_of,
    recipe_rows,
    table_row,
    tune_records,
    whole_reader,
)
from vision.recognize import DiceRecognizer, FixedDetector, load_image


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A shared folder whose Byler manifest holds three rendered photos, two in the tune fold, one not."""
    root = tmp_path_factory.mktemp("shared")
    byler = root / "data" / "dice-photos" / "byler"
    (byler / "images").mkdir(parents=True)
    (root / "data" / "dice-photos" / "rune55").mkdir()
    (root / "data" / "dice-photos" / "rune55" / "manifest.jsonl").write_text("")
    names = [f"IMG_{i:04d}.jpg" for i in range(200)]
    tune = [n for n in names if fold_of(f"images/{n}") == "tune"][:2]
    train = [n for n in names if fold_of(f"images/{n}") == "train"][:1]
    lines = []
    for seed, name in enumerate(tune + train):
        image, truth = render_scene(np.random.default_rng(seed), size=(320, 320), n_dice=(5, 5), side_range=(34, 40))
        cv2.imwrite(str(byler / "images" / name), image)
        dice = [{"box": [round(v, 1) for v in d.box], "value": d.value} for d in truth]
        lines.append(json.dumps({"image": f"images/{name}", "width": 320, "height": 320, "dice": dice}))
    (byler / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    return root


def test_a_model_is_measured_on_the_tune_fold_only(shared: Path) -> None:
    figures = measure(MODELS_DIR, shared, rendered_dice=60)
    tune_dice = 10  # two tune photos of 5 dice; the train photo is not measured
    assert figures["boxes"]["dice"] == tune_dice
    assert figures["jittered"]["crops"] == 8 * tune_dice
    assert figures["detector"]["dice"] <= tune_dice
    assert figures["rendered"]["dice"] >= 60
    # Clean rendered dice: the committed model reads them, and never wrong while sure.
    assert figures["boxes"]["wrong"] <= 1 and figures["boxes"]["sure_wrong"] == 0
    assert figures["jittered"]["sure_wrong"] <= 1 and 0 <= figures["jittered"]["log_loss"] < 0.5
    assert not figures["held_out"]
    row = table_row(figures)
    assert row.startswith(f"| {MODELS_DIR} (0) (trained on the tune fold: flattered) | ")
    assert f"of {tune_dice} / " in row


def test_missing_data_or_model_is_named(shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(MODELS_DIR), "--shared", str(tmp_path)]) == 2
    assert "no Byler manifest" in capsys.readouterr().err
    assert main([str(tmp_path), "--shared", str(shared)]) == 2
    assert "holds no dice-face.onnx" in capsys.readouterr().err


def _lowest_confidence_on_the_tune_boxes(shared: Path) -> float:
    """The committed model's least confident reading of the made-up tune dice, read from their labelled boxes."""
    reader = DiceRecognizer(detector=FixedDetector())
    lowest = 1.0
    for record in tune_records(shared):
        image = load_image(record["path"])
        reader.detector = FixedDetector(truth_candidates(record, image))
        lowest = min([lowest, *(die.confidence for die in reader.read(image))])
    return lowest


def test_a_higher_floor_asks_more_and_is_never_surer(shared: Path) -> None:
    # Clean rendered dice are read at 0.99999 and up, so the high floor sits just above the least sure of them:
    # that die, at least, is sure at 0.5 and unsure at the high floor.
    lowest = _lowest_confidence_on_the_tune_boxes(shared)
    assert 0.5 <= lowest < 1.0
    low = measure(MODELS_DIR, shared, floor=0.5, rendered_dice=30)
    high = measure(MODELS_DIR, shared, floor=(lowest + 1.0) / 2, rendered_dice=30)
    for part in ("boxes", "detector"):
        assert high[part]["unsure"] >= low[part]["unsure"]
        assert high[part]["sure_wrong"] <= low[part]["sure_wrong"]
    assert high["boxes"]["unsure"] > low["boxes"]["unsure"]
    assert high["jittered"]["sure_wrong"] <= low["jittered"]["sure_wrong"]
    assert "floor 0.50" in header(0.5) and "wrong at >= 0.50" in header(0.5)


def test_a_floor_that_is_not_a_probability_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for text in ("0", "1.5", "high"):
        with pytest.raises(SystemExit) as stop:
            main([str(MODELS_DIR), "--floor", text])
        assert stop.value.code == 2
        assert "--floor takes a probability" in capsys.readouterr().err
    with pytest.raises(ValueError, match="confidence floor"):
        DiceRecognizer(detector=FixedDetector(), floor=0.0)


def _figures(model: str, boxes: tuple[int, int, float], jittered: tuple[int, int, float]) -> dict:
    """A made-up measure() result: (wrong, sure wrong, unsure share) on the boxes and finds, (wrong, sure wrong,
    log-loss) on the jittered crops."""
    part = {"dice": 226, "wrong": boxes[0], "sure_wrong": boxes[1], "unsure": boxes[2]}
    return {
        "model": model,
        "boxes": part,
        "detector": dict(part),
        "jittered": {"crops": 1808, "wrong": jittered[0], "sure_wrong": jittered[1], "log_loss": jittered[2]},
        "rendered": {"dice": 1212, "wrong": 10, "sure_wrong": 0},
    }


def test_seeds_of_a_recipe_are_summed_into_one_row() -> None:
    assert recipe_of("/tmp/sw/combo-s3") == "combo" and recipe_of(Path("base-s12")) == "base"
    assert recipe_of("models") == "models", "a folder without a seed suffix is its own recipe"
    rows = recipe_rows(
        [
            _figures("sw/base-s0", (4, 1, 0.10), (40, 2, 0.08)),
            _figures("sw/combo-s0", (5, 0, 0.08), (30, 1, 0.06)),
            _figures("sw/base-s1", (6, 0, 0.12), (44, 3, 0.10)),
        ]
    )
    assert len(rows) == 4 and rows[1].startswith("|---")
    # base: boxes 10 (1) and finds 10 (1), unsure 11.0% on average, crops 84 / 5, log-loss 0.09, sure 1 + 1 + 5.
    assert rows[2] == "| base | 2 | 10 (1) | 11.0% | 10 (1) | 11.0% | 84 / 5 | 0.0900 | 7 | 20 |"
    assert rows[3] == "| combo | 1 | 5 (0) | 8.0% | 5 (0) | 8.0% | 30 / 1 | 0.0600 | 1 | 10 |"


def test_every_folder_is_checked_before_any_is_measured(
    shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(MODELS_DIR), str(tmp_path), "--shared", str(shared), "--by-recipe"]) == 2
    out, err = capsys.readouterr()
    assert "holds no dice-face.onnx" in err and out == "", "nothing is measured when one folder is bad"


def test_the_finds_can_be_measured_behind_a_detector_that_never_saw_the_tune_fold(
    shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The committed detector trained on the tune photos: refused, so a flattering row is never taken for one
    # behind a held-out detector.
    assert main([str(MODELS_DIR), "--shared", str(shared), "--detector", str(MODELS_DIR)]) == 2
    assert "trained on the tune fold" in capsys.readouterr().err
    assert main([str(MODELS_DIR), "--shared", str(shared), "--detector", str(tmp_path)]) == 2
    assert "holds no dice-detect.onnx" in capsys.readouterr().err
    # The same network with a card that says it was trained without the tune fold stands in for one.
    held_out = tmp_path / "held-out"
    held_out.mkdir()
    shutil.copy(MODELS_DIR / "dice-detect.onnx", held_out)
    card = json.loads((MODELS_DIR / "dice-detect.card.json").read_text())
    card["training"]["tune_fold_held_out"] = True
    (held_out / "dice-detect.card.json").write_text(json.dumps(card))
    detector = held_out_detector(held_out)
    figures = measure(MODELS_DIR, shared, rendered_dice=30, detector=detector)
    assert figures["detector"] == measure(MODELS_DIR, shared, rendered_dice=30)["detector"]
    (held_out / "dice-detect.onnx").write_bytes(b"not a network")
    with pytest.raises(ValueError, match="held-out"):
        held_out_detector(held_out)  # the card's checksum no longer fits: named, not a traceback


def test_two_folders_are_read_as_one_model_that_averages_them(
    shared: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    single = load_faces(MODELS_DIR)
    pair = load_faces(f"{MODELS_DIR}+{MODELS_DIR}")
    assert isinstance(pair, MeanOfModels) and not isinstance(single, MeanOfModels)
    crops = np.random.default_rng(0).integers(0, 256, (5, single.size, single.size, 3), dtype=np.uint8)
    np.testing.assert_allclose(pair.read(crops)[0], single.read(crops)[0], rtol=1e-5)
    # A pair is measured (and named) as one model; the same network twice reads as the network alone.
    figures = measure(f"{MODELS_DIR}+{MODELS_DIR}", shared, rendered_dice=30)
    assert figures["seed"] == "0+0" and figures["model"] == f"{MODELS_DIR}+{MODELS_DIR}"
    alone = measure(MODELS_DIR, shared, rendered_dice=30)
    assert figures["boxes"] == alone["boxes"] and figures["rendered"] == alone["rendered"]
    # Models that read other labels are not averaged: named before anything is measured.
    other = tmp_path / "other"
    other.mkdir()
    shutil.copy(MODELS_DIR / "dice-face.onnx", other)
    card = json.loads((MODELS_DIR / "dice-face.card.json").read_text())
    card["labels"] = [label for label in card["labels"] if label != "none"]
    (other / "dice-face.card.json").write_text(json.dumps(card))
    assert main([f"{MODELS_DIR}+{other}", "--shared", str(shared)]) == 2
    out, err = capsys.readouterr()
    assert "reads other crops or labels" in err and out == ""
    assert main([f"{MODELS_DIR}+{tmp_path / 'missing'}", "--shared", str(shared)]) == 2
    assert "missing holds no dice-face.onnx" in capsys.readouterr().err


def test_the_tune_photos_can_be_read_as_taken_under_other_conditions(
    shared: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    as_taken = measure(MODELS_DIR, shared, rendered_dice=30)
    ruined = measure(MODELS_DIR, shared, rendered_dice=30, condition=parse_condition("jpeg:5"))
    assert ruined["condition"] == "jpeg:5" and ruined["boxes"]["dice"] == as_taken["boxes"]["dice"]
    assert ruined["boxes"]["unsure"] > as_taken["boxes"]["unsure"], "the reader saw the changed photos"
    assert ruined["jittered"] is None and ruined["rendered"] is None, "crops and renders are not photos"
    row = table_row(ruined)
    assert " under jpeg:5 | " in row and row.endswith("| - | - |")
    assert recipe_rows([ruined])[2].endswith("| - | - | 0 | - |")
    assert main([str(MODELS_DIR), "--shared", str(shared), "--condition", "scale:0.5"]) == 0
    assert "under scale:0.5 |" in capsys.readouterr().out
    with pytest.raises(SystemExit) as stop:
        main([str(MODELS_DIR), "--condition", "zoom:2"])
    assert stop.value.code == 2 and "known kind" in capsys.readouterr().err


def test_finds_that_match_no_label_are_counted_false(shared: Path) -> None:
    records = tune_records(shared)
    reader = DiceRecognizer()
    labelled = whole_reader(reader, records, truth_boxes=False)
    assert labelled["false"] == 0 and labelled["dice"] == 10
    unlabelled = [{**records[0], "dice": records[0]["dice"][1:]}, *records[1:]]  # one die left out of the labels
    figures = whole_reader(reader, unlabelled, truth_boxes=False)
    assert (figures["false"], figures["dice"]) == (1, 9)
    row = table_row({**measure(MODELS_DIR, shared, rendered_dice=30), "detector": figures})
    assert "| 0 (0) of 9, 1 false / " in row
