"""The fixed split of the real photos and the audited label corrections (vision.lab.splits)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from device.cli import main as companion
from vision.lab.splits import BYLER_CORRECTIONS, apply_corrections, read_corrections, read_manifest, split_of

PHOTOS = Path(__file__).resolve().parent / "data" / "photos"


def records() -> list[dict[str, Any]]:
    return [
        {
            "image": "a.jpg",
            "dice": [{"box": [10.0, 10.0, 40.0, 40.0], "value": 2}, {"box": [50, 50, 80, 80], "value": 5}],
        },
        {"image": "b.jpg", "dice": [{"box": [0, 0, 30, 30], "value": 6}]},
    ]


def write(path: Path, *lines: dict[str, Any] | str) -> Path:
    path.write_text("".join((json.dumps(x) if isinstance(x, dict) else x) + "\n" for x in lines), encoding="utf-8")
    return path


def test_corrections_change_add_and_drop_dice_on_copies(tmp_path: Path) -> None:
    fixes = read_corrections(
        write(
            tmp_path / "fix.jsonl",
            {"image": "a.jpg", "box": [10, 10, 40, 40], "value": 2, "fix": {"box": [10, 10, 40, 40], "value": 3},
             "why": "three pips"},
            {"image": "a.jpg", "box": [50, 50, 80, 80], "value": 5, "fix": None, "why": "not a die"},
            {"image": "b.jpg", "box": None, "value": None, "fix": {"box": [40, 40, 70, 70], "value": 1},
             "why": "unlabelled"},
            {"image": "elsewhere.jpg", "box": None, "value": None, "fix": {"box": [1, 1, 9, 9], "value": 4},
             "why": "another split"},
        )
    )  # fmt: skip
    original = records()
    fixed, applied = apply_corrections(original, fixes)
    assert applied == 3
    assert fixed[0]["dice"] == [{"box": [10, 10, 40, 40], "value": 3}]
    assert fixed[1]["dice"][1] == {"box": [40, 40, 70, 70], "value": 1}
    assert original == records()  # the caller's records are untouched


def test_a_correction_that_does_not_fit_the_manifest_is_refused(tmp_path: Path) -> None:
    wrong_value = {"image": "a.jpg", "box": [10, 10, 40, 40], "value": 4, "fix": None, "why": "x"}
    with pytest.raises(ValueError, match=r"a\.jpg: no die 4 at"):
        apply_corrections(records(), read_corrections(write(tmp_path / "f.jsonl", wrong_value)))
    moved = {"image": "a.jpg", "box": [12, 10, 40, 40], "value": 2, "fix": None, "why": "x"}
    with pytest.raises(ValueError, match="no die 2"):
        apply_corrections(records(), read_corrections(write(tmp_path / "g.jsonl", moved)))


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "not valid JSON"),
        ({"image": "a.jpg", "box": [0, 0, 1, 1], "value": 2, "fix": None}, "needs 'image'"),
        ({"image": "a.jpg", "box": None, "value": 2, "fix": None, "why": "x"}, "both null"),
        ({"image": "a.jpg", "box": [0, 0, 1, 1], "value": 2, "fix": {"box": [0, 0, 1, 1], "value": 7}, "why": "x"},
         "'fix' is null"),
        ({"image": "a.jpg", "box": [0, 0, 1, 1], "value": 2, "fix": {"box": [5, 5, 1, 1], "value": 3}, "why": "x"},
         "'fix' is null"),
        ({"image": "a.jpg", "box": None, "value": None, "fix": None, "why": "x"}, "changes nothing"),
    ],
)  # fmt: skip
def test_bad_correction_lines_name_the_line(tmp_path: Path, line: dict[str, Any] | str, message: str) -> None:
    path = write(tmp_path / "bad.jsonl", {"image": "b.jpg", "box": None, "value": None,
                                          "fix": {"box": [1, 1, 9, 9], "value": 4}, "why": "ok"}, line)  # fmt: skip
    with pytest.raises(ValueError, match=message) as caught:
        read_corrections(path)
    assert "bad.jsonl:2" in str(caught.value)


def test_the_shipped_byler_corrections_fit_the_shared_manifest(shared_dir: Path) -> None:
    manifest = shared_dir / "data" / "dice-photos" / "byler" / "manifest.jsonl"
    fixes = read_corrections(BYLER_CORRECTIONS)
    assert fixes and all(f["why"] for f in fixes)
    fixed, applied = apply_corrections(read_manifest(manifest), fixes)
    assert applied == len(fixes)
    # Every audited image is in the validation split, which the trainers never read.
    assert {split_of(f["image"]) for f in fixes} == {"val"}
    assert sum(len(r["dice"]) for r in fixed) == 1026 + sum(f["box"] is None for f in fixes)


def test_eval_dice_reports_the_corrections_it_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = next(read_manifest(PHOTOS / "manifest.jsonl"))
    die = record["dice"][0]
    wrong = 1 + die["value"] % 6  # a value the die does not show: the corrected manifest is now wrong there
    fixes = write(
        tmp_path / "fix.jsonl",
        {"image": record["image"], "box": die["box"], "value": die["value"],
         "fix": {"box": die["box"], "value": wrong}, "why": "test"},
    )  # fmt: skip
    out = tmp_path / "eval"
    args = ["eval-dice", str(PHOTOS / "manifest.jsonl"), "--truth-boxes", "--corrections", str(fixes)]
    assert companion([*args, "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["corrections_applied"] == 1 and summary["wrong_values"] >= 1
    assert companion([*args[:-1], str(tmp_path / "none.jsonl")]) == 2
    assert "no such corrections file" in capsys.readouterr().err
