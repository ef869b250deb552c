"""The face model's trainer (vision.lab.read_train): its data makers need no torch; its network and export do
(those tests are skipped without the ``train`` extra)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.crop import crop_die
from vision.lab.read_train import (
    CHANNELS,
    NOT_A_DIE,
    SHARED,
    jittered_candidate,
    options,
    real_crops,
    rendered_crops,
    token_crops,
)
from vision.lab.render import render_scene
from vision.lab.splits import (
    RUNE55_DROPPED,
    apply_corrections,
    fold_of,
    manifest_path,
    read_corrections,
    read_manifest,
    split_of,
)
from vision.types import DieCandidate


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


@pytest.mark.parametrize(
    ("size", "channels", "centre"),
    [(32, None, False), (48, None, False), (32, (8, 16, 16, 24), False), (32, None, True)],
)
def test_the_network_exports_to_the_same_maths(tmp_path: Path, size: int, channels: tuple | None, centre: bool) -> None:
    torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed")
    pytest.importorskip("onnx", reason="the train extra (onnx) is not installed")
    from vision.lab.read_train import _check_export, build_model, export

    torch.manual_seed(0)
    model = build_model(size, channels, centre)
    crops = np.random.default_rng(2).integers(0, 256, (5, size, size, 3), dtype=np.uint8)
    path = tmp_path / "face.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's exporter warns about its own deprecations
        export(model, path, size)
    _check_export(model, path, crops)  # raises when ONNX Runtime and torch disagree
    with pytest.raises(ValueError, match="no face network for 40 px"):
        build_model(40)


def test_an_ensemble_gives_the_mean_of_its_members_and_exports_to_the_same_maths(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed")
    pytest.importorskip("onnx", reason="the train extra (onnx) is not installed")
    from vision.lab.read_train import _check_export, build_ensemble, build_model, export, to_tensor

    torch.manual_seed(0)
    networks = [build_model(32).eval() for _ in range(3)]
    assert build_ensemble(networks[:1]) is networks[0], "one member is the network itself"
    ensemble = build_ensemble(networks).eval()
    crops = np.random.default_rng(4).integers(0, 256, (6, 32, 32, 3), dtype=np.uint8)
    x = to_tensor(crops)
    with torch.no_grad():
        mean = torch.stack([torch.softmax(n(x), dim=1) for n in networks]).mean(dim=0)
        got = torch.softmax(ensemble(x), dim=1)  # the reader's softmax of the ensemble's logits
        lone = torch.softmax(networks[1](x), dim=1)
    assert torch.allclose(got, mean, atol=1e-6)
    assert not torch.allclose(got, lone, atol=1e-3), "the members differ, so the mean is not any one of them"
    path = tmp_path / "face.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's exporter warns about its own deprecations
        export(ensemble, path, 32)
    _check_export(ensemble, path, crops)


def test_the_command_line_takes_a_count_of_members(capsys: pytest.CaptureFixture[str]) -> None:
    assert options().parse_args([]).members == 2, "the recipe averages two networks"
    assert options().parse_args(["--members", "1"]).members == 1
    for bad in ("0", "9", "two", "-1", "1.5"):
        with pytest.raises(SystemExit):
            options().parse_args(["--members", bad])
        assert f"--members: takes a count of networks from 1 to 8, not '{bad}'" in capsys.readouterr().err


def test_centre_contrast_makes_faint_pips_on_a_dark_die_strong() -> None:
    torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed")
    from vision.lab.read_train import build_model

    crop = torch.full((1, 3, 32, 32), 0.85)  # a light table around ...
    crop[:, :, 6:26, 6:26] = 0.12  # ... a dark die ...
    for y, x in ((10, 10), (15, 15), (20, 20)):
        crop[:, :, y : y + 3, x : x + 3] = 0.22  # ... with three faint pips
    seen: list = []
    for centre in (False, True):
        model = build_model(32, None, centre).eval()
        model.features[0].register_forward_hook(lambda _m, inputs, _o: seen.append(inputs[0]))
        with torch.no_grad():
            model(crop)
    plain, both = seen
    assert plain.shape[1] == 3 and both.shape[1] == 6
    assert torch.equal(both[:, :3], plain), "the whole-crop view is kept as it was"
    pip, body = (10, 10), (12, 16)
    faint = float(plain[0, 0, pip[0] + 1, pip[1] + 1] - plain[0, 0, body[0], body[1]])
    strong = float(both[0, 3, pip[0] + 1, pip[1] + 1] - both[0, 3, body[0], body[1]])
    assert faint < 0.5 and strong > max(1.5, 5 * faint), (faint, strong)


def test_the_command_line_refuses_bad_channels_before_any_work(capsys: pytest.CaptureFixture[str]) -> None:
    from vision.lab.read_train import options

    assert options().parse_args(["--channels", "8,16,16,24"]).channels == (8, 16, 16, 24)
    for bad in ("8,16,24", "a,b,c,d", "8,16,0,24"):
        with pytest.raises(SystemExit):
            options().parse_args(["--channels", bad])
        assert "--channels takes four positive whole numbers" in capsys.readouterr().err


def test_the_command_line_refuses_a_share_outside_0_to_1(capsys: pytest.CaptureFixture[str]) -> None:
    assert options().parse_args(["--grey", "1", "--soften", "0"]).grey == 1.0
    for option in ("--grey", "--soften", "--faint-pips", "--swirled", "--translucent"):
        for bad in ("1.5", "-0.1", "half", "nan"):
            with pytest.raises(SystemExit):
                options().parse_args([option, bad])
            assert f"{option}: takes a share from 0 to 1, not '{bad}'" in capsys.readouterr().err


def test_augment_keeps_colour_unless_asked_and_softens_when_asked() -> None:
    torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed")
    from vision.lab.read_train import augment

    batch = torch.zeros(64, 3, 32, 32)
    batch[:, 2] = 0.6  # a red body (BGR) ...
    batch[:, :, ::4, ::4] = torch.tensor([0.8, 0.3, 0.1]).view(3, 1, 1)  # ... with blue dots: colour grey would lose
    coloured = augment(batch, torch.Generator().manual_seed(0), 0.0, 0.0)
    spread = coloured.std(dim=1).mean(dim=(1, 2))  # per crop: how far its channels differ
    assert bool((spread > 0.05).all()), "with grey 0 no crop loses its colour"
    greyed = augment(batch, torch.Generator().manual_seed(0), 1.0, 0.0)
    assert float(greyed.std(dim=1).max()) < 0.2, "with grey 1 every crop is grey (but for the noise)"

    def fine_detail(x: torch.Tensor) -> torch.Tensor:
        """Per crop: the mean step between neighbouring pixels (sharp dots step a lot)."""
        return (x[..., 1:] - x[..., :-1]).abs().mean(dim=(1, 2, 3))

    sharp = augment(batch, torch.Generator().manual_seed(0), 0.0, 0.0)
    soft = augment(batch, torch.Generator().manual_seed(0), 0.0, 1.0)
    assert bool((fine_detail(soft) < 0.8 * fine_detail(sharp)).all()), "soften 1 blurs every crop"
    assert soft.shape == batch.shape and float(soft.min()) >= 0 and float(soft.max()) <= 1


def test_the_trainer_says_what_it_cannot_import_before_any_work(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import sys
    import types

    from vision.lab.read_train import main

    for name in ("torch", "tqdm", "onnx"):  # the train extra, present or not here: only the quantiser is missing
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "onnxruntime.quantization", None)  # as if ml_dtypes were missing
    assert main(["--shared", "/nonexistent"]) == 2
    err = capsys.readouterr().err
    assert "onnxruntime.quantization cannot be imported" in err and "pip install -e '.[train]'" in err
    monkeypatch.setitem(sys.modules, "torch", None)
    assert main(["--float32"]) == 2
    assert "torch cannot be imported" in capsys.readouterr().err
    from vision.lab.train import main as train_all

    assert train_all([]) == 2  # make train says it too, before the detector's trainer starts
    assert "train: torch cannot be imported" in capsys.readouterr().err


def test_the_trainer_refuses_a_device_torch_cannot_use(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("torch", reason="the train extra (torch) is not installed")
    from vision.lab.read_train import main

    assert options().parse_args([]).device == "cpu", "the recipe trains on the CPU"
    assert main(["--device", "tpu"]) == 2
    assert "torch cannot train on 'tpu' here" in capsys.readouterr().err


def _rune55_only(root: Path) -> list[dict]:
    """A shared folder whose Rune55 manifest holds one rendered photo (the Byler one is empty)."""
    rune = root / "data" / "dice-photos" / "rune55"
    (rune / "images").mkdir(parents=True)
    (root / "data" / "dice-photos" / "byler").mkdir()
    (root / "data" / "dice-photos" / "byler" / "manifest.jsonl").write_text("")
    image, truth = render_scene(np.random.default_rng(3), size=(240, 240), n_dice=(4, 4), side_range=(34, 40))
    cv2.imwrite(str(rune / "images" / "a.jpg"), image)
    dice = [{"box": [round(v, 1) for v in d.box], "value": d.value} for d in truth]
    (rune / "manifest.jsonl").write_text(json.dumps({"image": "images/a.jpg", "dice": dice}) + "\n")
    return dice


def _tiny_shared(root: Path) -> Path:
    """A shared folder with one rendered Rune55 photo and one Byler photo in each of val, tune and train."""
    _rune55_only(root)
    byler = root / "data" / "dice-photos" / "byler"
    (byler / "images").mkdir()
    rng = np.random.default_rng(5)
    wanted, lines, i = {"val", "tune", "train"}, [], 0
    while wanted:
        name, i = f"images/p{i}.jpg", i + 1
        if fold_of(name) not in wanted:
            continue
        wanted.discard(fold_of(name))
        image, truth = render_scene(rng, size=(240, 240), n_dice=(3, 3), side_range=(34, 40))
        cv2.imwrite(str(byler / name), image)
        dice = [{"box": [round(v, 1) for v in d.box], "value": d.value} for d in truth]
        lines.append(json.dumps({"image": name, "dice": dice}))
    (byler / "manifest.jsonl").write_text("\n".join(lines) + "\n")
    return root


def test_a_trained_ensemble_is_the_mean_of_the_one_network_runs_of_its_seeds(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="the train extra (torch) is not installed")
    from vision.faces import FaceModel
    from vision.lab.read_train import main

    shared = _tiny_shared(tmp_path / "shared")
    quick = ["--shared", str(shared), "--epochs", "1", "--rendered", "48", "--threads", "1", "--hold-out-tune"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's exporter warns about its own deprecations
        for seed, members, out in ((0, 1, "s0"), (1, 1, "s1"), (0, 2, "pair")):
            run = [*quick, "--seed", str(seed), "--members", str(members), "--out", str(tmp_path / out), "--float32"]
            assert main(run) == 0
    crops = np.random.default_rng(6).integers(0, 256, (8, 32, 32, 3), dtype=np.uint8)

    def probabilities(out: str) -> np.ndarray:
        """The faces' and 'not a die' probabilities, as the device's reader gets them (card checked)."""
        faces, not_die = FaceModel(models_dir=tmp_path / out).read(crops)
        return np.column_stack([faces, not_die])

    one, other, pair = probabilities("s0"), probabilities("s1"), probabilities("pair")
    assert np.allclose(pair, (one + other) / 2, atol=1e-5), "each member is the one-network run of its seed"
    assert not np.allclose(one, other, atol=1e-3), "two seeds give two networks"
    card = json.loads((tmp_path / "pair" / "dice-face.card.json").read_text())
    assert card["training"]["members"] == 2 and card["training"]["member_seeds"] == [0, 1]
    assert card["training"]["data"].startswith("each of 2 networks (seeds 0..1)")
    assert card["output"]["meaning"].startswith("the log of the 2 networks' mean p")
    assert card["quantisation"] is None


def test_the_trainer_writes_the_graph_in_8_bits_reading_as_the_float_one(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="the train extra (torch) is not installed")
    import onnx

    from vision.faces import FaceModel
    from vision.lab.read_train import main

    shared = _tiny_shared(tmp_path / "shared")
    quick = ["--shared", str(shared), "--epochs", "1", "--rendered", "48", "--threads", "1", "--hold-out-tune"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main([*quick, "--out", str(tmp_path / "float"), "--float32"]) == 0
        assert main([*quick, "--out", str(tmp_path / "int8")]) == 0
    card = json.loads((tmp_path / "int8" / "dice-face.card.json").read_text())
    assert card["quantisation"]["weights"].startswith("int8") and card["quantisation"]["calibration_crops"] == 3
    ops = {node.op_type for node in onnx.load(str(tmp_path / "int8" / "dice-face.onnx")).graph.node}
    assert {"QuantizeLinear", "DequantizeLinear", "Conv"} <= ops
    sizes = {out: (tmp_path / out / "dice-face.onnx").stat().st_size for out in ("float", "int8")}
    assert sizes["int8"] < sizes["float"] / 2
    image, truth = render_scene(np.random.default_rng(8), size=(320, 320), n_dice=(8, 8), side_range=(34, 40))
    crops = np.stack([crop_die(image, DieCandidate(d.centre, d.side, d.angle, 1.0), 32) for d in truth])
    (f_faces, f_none), (q_faces, q_none) = (
        FaceModel(models_dir=tmp_path / out).read(crops) for out in ("float", "int8")
    )
    assert np.abs(np.column_stack([f_faces, f_none]) - np.column_stack([q_faces, q_none])).max() < 0.15


def test_dropped_rune55_dice_are_left_out_of_the_face_crops(tmp_path: Path) -> None:
    dice = _rune55_only(tmp_path)
    rng = np.random.default_rng(0)
    _, every = real_crops(tmp_path, {"rune55"}, {}, rng, jitter=False)
    assert every.tolist() == [d["value"] - 1 for d in dice]
    drop = {"image": "images/a.jpg", "box": dice[1]["box"], "value": dice[1]["value"], "fix": None, "why": "test"}
    _, kept = real_crops(tmp_path, {"rune55"}, {}, rng, jitter=False, rune55_fixes=[drop])
    assert kept.tolist() == [d["value"] - 1 for i, d in enumerate(dice) if i != 1]
    wrong = {**drop, "value": dice[1]["value"] % 6 + 1}
    with pytest.raises(ValueError, match="no die"):
        real_crops(tmp_path, {"rune55"}, {}, rng, jitter=False, rune55_fixes=[wrong])


def test_the_rune55_drop_list_is_opt_in_and_only_drops() -> None:
    assert options().parse_args([]).rune55_dropped is None, "the recipe trains on every Rune55 die"
    assert options().parse_args(["--rune55-dropped"]).rune55_dropped == RUNE55_DROPPED
    assert options().parse_args(["--rune55-dropped", "x.jsonl"]).rune55_dropped == Path("x.jsonl")
    fixes = read_corrections(RUNE55_DROPPED)
    assert len(fixes) > 100 and all(f["fix"] is None and f["why"] for f in fixes), "every line drops a die, saying why"


@pytest.mark.skipif(not (SHARED / "data" / "dice-photos" / "rune55").is_dir(), reason="needs ../shared")
def test_the_dropped_rune55_dice_are_all_in_the_manifest() -> None:
    records = list(read_manifest(manifest_path(SHARED, "rune55")))
    fixed, applied = apply_corrections(records, read_corrections(RUNE55_DROPPED))
    assert applied == len(read_corrections(RUNE55_DROPPED))
    assert sum(len(r["dice"]) for r in records) - sum(len(r["dice"]) for r in fixed) == applied


def test_token_crops_are_not_dice_and_only_drawn_when_asked() -> None:
    crops, labels = token_crops(40, np.random.default_rng(0), size=32)
    assert crops.shape == (40, 32, 32, 3) and crops.dtype == np.uint8 and set(labels.tolist()) == {NOT_A_DIE}
    again, _ = token_crops(40, np.random.default_rng(0), size=32)
    assert np.array_equal(crops, again)
    none, no_labels = token_crops(0, np.random.default_rng(0), size=48)
    assert none.shape == (0, 48, 48, 3) and len(no_labels) == 0
    assert options().parse_args([]).tokens == 0, "the recipe draws no tokens unless asked"
    assert options().parse_args(["--tokens", "3000"]).tokens == 3000
    with pytest.raises(SystemExit):
        options().parse_args(["--tokens", "-5"])
