"""``companion mat``, ``companion locate``, ``companion calibrate`` and ``companion eval-zones``: the mats on the table.

``mat`` writes a printable sheet (SVG in millimetres, or PDF); ``locate`` finds the zones of the mats in image
files (one JSON line per image with ``--json``); ``calibrate`` looks at one camera frame (or an image) and says,
sheet by sheet, what is seen, what is missing and whether the pixels per millimetre are enough for the game's
smallest piece; ``eval-zones`` measures the registration stage on rendered frames (vision's lab).
The functions behind them (:func:`vision.matprint.mat_svg`, :func:`vision.registration.locate`,
:func:`calibrate_frame`) are what the page calls too.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from device.config import CameraConfig, resolve_state_dir
from device.errors import UsageError
from vision.mats import GAMES, MAX_SEATS, PAPERS, mats
from vision.registration import (
    MarkerFinder,
    Registration,
    annotate,
    calibration_report,
    default_px_per_mm,
    locate,
)


def register(subparsers: Any) -> None:
    mat = subparsers.add_parser(
        "mat",
        help="write a printable mat sheet (SVG in mm, or PDF)",
        description="Write sheet N of a game's mats, true to scale when printed at 100 %%: AprilTag markers that "
        "name the game, the sheet and the seat, outlines where the pieces go, the zones' names and a scale bar.",
    )
    mat.add_argument("game", choices=GAMES, metavar="GAME", help=f"one of {', '.join(GAMES)}")
    mat.add_argument("--sheet", type=int, default=1, help="which sheet (1 = the first player's mat; default 1)")
    mat.add_argument("--players", type=int, default=2, help=f"players at the table, 1 to {MAX_SEATS} (default 2)")
    mat.add_argument("--paper", choices=tuple(PAPERS), help="paper size (default: the smallest of a4 and a3 that fits)")
    mat.add_argument("--out", type=Path, required=True, metavar="FILE", help="FILE.svg or FILE.pdf")
    mat.add_argument("--pdf", action="store_true", help="also write a PDF beside the SVG (FILE.pdf)")
    mat.add_argument("--list", action="store_true", help="also print every sheet of the game")
    mat.set_defaults(func=mat_command)

    loc = subparsers.add_parser(
        "locate",
        help="find the mats' zones in image files",
        description="Find the mats' markers and map every zone to millimetres on its sheet. With --json, one line "
        "per image: {image, game, zones: [{zone, sheet, markers, image_to_mat, rect_mm, error_mm, complete, ...}], "
        "problems}. Exit status 1 when no mat was located in some image.",
    )
    loc.add_argument("images", nargs="+", metavar="IMAGE")
    loc.add_argument("--game", choices=GAMES, help="the game being played (default: the one whose markers are seen)")
    loc.add_argument("--players", type=int, help="players at the table (then a mat of another seat is reported)")
    loc.add_argument("--json", action="store_true", help="one JSON object per image per line")
    loc.add_argument("--annotate", type=Path, metavar="OUT",
                     help="write the image with zones and markers drawn (a file for one IMAGE, a folder for several)")
    loc.set_defaults(func=locate_command)

    cal = subparsers.add_parser(
        "calibrate",
        help="check the camera's view of the mats: what is missing, pixels per millimetre",
        description="Look at one frame from the camera (or --image) and say, for every sheet of the game, how many "
        "markers are seen, the pixels per millimetre and the smallest piece's size in pixels, and what to fix.",
    )
    cal.add_argument("--game", choices=GAMES, required=True)
    cal.add_argument("--players", type=int, default=2)
    cal.add_argument("--image", type=Path, help="an image file instead of a camera frame")
    cal.add_argument("--source", help="frame source: picamera2, opencv:N or replay:PATH (default: from config)")
    cal.add_argument("--config", metavar="FILE", help="configuration file (TOML)")
    cal.add_argument("--json", action="store_true", help="print the report as JSON")
    cal.add_argument("--annotate", type=Path, metavar="FILE", help="write the frame with zones and markers drawn")
    cal.add_argument("--state-dir", metavar="DIR", help="where the taught colours are (default: from config)")
    cal.set_defaults(func=calibrate_command)

    teach = subparsers.add_parser(
        "teach",
        help="teach the colours of a game's dice (or Pyramido's blocks) from a photo",
        description="Teach the table's own dice colours: photograph one die of each colour of the game (any "
        "order); each die is paired with a colour name and the measured colour is kept in the state directory "
        "for the readers. Pyramido: photograph player 1's pyramid mat with dominoes on it showing each of the "
        "five block colours. Without --image, print what is taught and what is still to teach.",
    )
    teach.add_argument("--game", choices=("pyradice", "dicetreasure", "pyramido"), required=True)
    teach.add_argument("--image", type=Path, help="a photo of one die of each of the game's colours (Pyramido: of "
                       "player 1's pyramid mat with every block colour on it)")
    teach.add_argument("--forget", action="store_true", help="forget every colour taught for the game first")
    teach.add_argument("--state-dir", metavar="DIR", help="state directory (default: from config)")
    teach.add_argument("--config", metavar="FILE", help="configuration file (TOML)")
    teach.set_defaults(func=teach_command)

    ev = subparsers.add_parser(
        "eval-zones",
        help="measure the registration stage on rendered camera frames (mapping error in mm)",
        description="Render the game's mats for 2 players into frames (tilt up to 30 degrees, rotation, lighting, "
        "blur, noise, JPEG, covered markers), locate them and measure how far each zone point maps from the truth.",
    )
    ev.add_argument("--game", choices=(*GAMES, "all"), default="all")
    ev.add_argument("--frames", type=int, default=20, help="frames per game and condition (default 20)")
    ev.add_argument("--seed", type=int, default=0)
    ev.add_argument("--size", default="1280x960", help="frame size WxH (default 1280x960)")
    ev.add_argument("--out", type=Path, metavar="CSV", help="write the figures as CSV")
    ev.add_argument("--k1", type=float, default=0.0,
                    help="radial lens distortion of the rendered camera (e.g. -0.1: barrel; default 0: a pinhole)")
    ev.add_argument("--advice", action="store_true",
                    help="only the camera advice: each game's table straight down at 1280x960 and 2304x1296, "
                    "pixels per mm and the smallest piece in pixels")
    ev.set_defaults(func=eval_command)


def _check_players(players: int | None) -> None:
    if players is not None and not 1 <= players <= MAX_SEATS:
        raise UsageError(f"--players {players}: 1 to {MAX_SEATS}")


def mat_command(args: argparse.Namespace) -> int:
    from vision.matprint import write_mat

    _check_players(args.players)
    sheets = mats(args.game, args.players)
    write_mat(args.out, args.game, args.sheet, args.players, args.paper)
    if args.pdf and args.out.suffix.lower() == ".svg":
        beside = write_mat(args.out.with_suffix(".pdf"), args.game, args.sheet, args.players, args.paper)
        print(f"wrote {beside}")
    chosen = sheets[args.sheet - 1]
    print(f"wrote {args.out}: sheet {args.sheet} of {len(sheets)}, {chosen.title} "
          f"({chosen.size[0]:g} x {chosen.size[1]:g} mm, markers {chosen.markers[0].id}-{chosen.markers[-1].id})")
    if args.list:
        for i, m in enumerate(sheets, 1):
            print(f"  sheet {i}: {m.title} ({m.size[0]:g} x {m.size[1]:g} mm)")
    return 0


def _load(path: str | Path) -> np.ndarray:
    from vision.recognize import load_image

    return load_image(path)


def _write(path: Path, image: np.ndarray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(path), image):
        raise OSError(f"could not write {path} (is the suffix an image type, e.g. .png or .jpg?)")


def _summary(name: str, reg: Registration) -> list[str]:
    lines = [f"{name}: {len(reg.zones)} zones of {reg.game or 'no game'}"]
    for z in reg.zones:
        state = "complete" if z.complete else "incomplete"
        seen = f"{len(z.fit.markers)}/{len(z.fit.mat.markers)}"
        lines.append(f"  {z.zone.key:16s} on {z.fit.mat.key:12s} {seen} markers, "
                     f"error {z.fit.error_mm:.2f} mm, {z.fit.px_per_mm(z.zone.rect.centre):.2f} px/mm, {state}")
    lines += [f"  problem: {p}" for p in reg.problems]
    return lines


def locate_command(args: argparse.Namespace) -> int:
    _check_players(args.players)
    finder = MarkerFinder()
    several = len(args.images) > 1
    if args.annotate is not None and several:
        args.annotate.mkdir(parents=True, exist_ok=True)
    status = 0
    for name in args.images:
        image = _load(name)
        reg = locate(image, args.game, args.players, finder)
        if not reg.fits:
            status = 1
        if args.json:
            print(json.dumps(reg.to_json(name)), flush=True)
        else:
            print("\n".join(_summary(name, reg)), flush=True)
        if args.annotate is not None:
            out = args.annotate / (Path(name).stem + ".png") if several else args.annotate
            _write(out, annotate(image, reg))
    return status


def calibrate_frame(image: np.ndarray, game: str, players: int = 2, finder: MarkerFinder | None = None
                    ) -> tuple[dict[str, Any], Registration]:
    """The set-up check of one frame: the JSON-ready report (what the page shows) and the registration."""
    reg = locate(image, game, players, finder or MarkerFinder(thorough=True))
    return calibration_report(reg, game, players), reg


def zone_px_per_mm(camera: CameraConfig) -> float:
    """The rectified zones' scale: ``[camera] zone_px_per_mm``, or the camera's own when that is 0."""
    if camera.zone_px_per_mm < 0:
        raise UsageError(f"[camera] zone_px_per_mm {camera.zone_px_per_mm} must not be negative")
    return camera.zone_px_per_mm or default_px_per_mm(camera.width)


def _camera_frame(args: argparse.Namespace) -> np.ndarray:
    from device.config import load_config
    from device.sources import make_source

    config = load_config(args.config)
    spec = args.source or config.camera.source
    source = make_source(spec, width=config.camera.width, height=config.camera.height,
                         warmup_s=config.camera.warmup_s, fast=True)
    with source:
        frame = source.read()
    if frame.image is None:
        raise UsageError(f"the frame source {spec} gave no picture")
    return frame.image


def calibrate_command(args: argparse.Namespace) -> int:
    _check_players(args.players)
    image = _load(args.image) if args.image is not None else _camera_frame(args)
    report, reg = calibrate_frame(image, args.game, args.players)
    report["colours"] = _colours(args)
    if args.json:
        print(json.dumps(report))
    else:
        h, w = image.shape[:2]
        print(f"{report['game']} for {args.players} players, frame {w}x{h}: "
              + ("ready" if report["ready"] else "not ready"))
        for sheet in report["sheets"]:
            extra = ""
            if sheet["located"]:
                extra = (f", {sheet['px_per_mm']:.2f} px/mm, a {sheet['smallest_piece']} is "
                         f"{sheet['smallest_piece_px']:.0f} px, error {sheet['error_mm']:.2f} mm")
            print(f"  {sheet['message']}{extra}")
        for line in report["advice"]:
            print(f"  fix: {line}")
        for line in report["problems"]:
            if not any(advice.startswith(line) for advice in report["advice"]):  # said once, with what to do
                print(f"  problem: {line}")
        for piece, state in report["colours"]["pieces"].items():
            missing = ", ".join(state["missing"]) or "none"
            print(f"  colours of a {piece} taught: {', '.join(state['taught']) or 'none'}; still to teach: {missing}")
    if args.annotate is not None:
        _write(args.annotate, annotate(image, reg))
    return 0 if report["ready"] else 1


def _colours(args: argparse.Namespace) -> dict[str, Any]:
    from device.teaching import TeachingStore

    return TeachingStore(resolve_state_dir(args.state_dir, args.config)).report(args.game)


def teach_command(args: argparse.Namespace) -> int:
    from device.teaching import TeachingStore

    store = TeachingStore(resolve_state_dir(args.state_dir, args.config))
    if args.forget:
        store.forget(args.game)
        print(f"forgot every colour taught for {args.game}")
    if args.image is not None and args.game == "pyramido":
        try:
            blocks = teach_blocks(store, _load(args.image))
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        for name, lab, cells in blocks:
            print(f"block {name}: {cells} quarter cells  Lab {lab[0]:.1f} {lab[1]:.1f} {lab[2]:.1f}")
    elif args.image is not None:
        for centre, lab, name in teach_dice(store, args.game, _load(args.image)):
            print(f"die at ({centre[0]:.0f}, {centre[1]:.0f}): {name}  Lab {lab[0]:.1f} {lab[1]:.1f} {lab[2]:.1f}")
    for piece, state in store.report(args.game)["pieces"].items():
        print(f"{args.game} {piece}: taught {', '.join(state['taught']) or 'nothing'}; "
              f"still to teach: {', '.join(state['missing']) or 'nothing'}")
    return 0


def teach_dice(store: Any, game: str, image: np.ndarray) -> list[tuple[tuple[float, float], Any, str]]:
    """Measure one die of each of ``game``'s colours in ``image``, pair them with the names (closest overall
    match to what is known so far), and teach each; returns (centre, Lab, name) per die."""
    from vision.cli import measure_dice
    from vision.colour import calibrate
    from vision.recognize import DiceRecognizer

    known = store.palette(game, "die")
    measured = measure_dice(DiceRecognizer(palette=known), image)
    result = calibrate(measured, known)
    for _, lab, name in result.dice:
        store.teach(game, "die", name, lab)
    return [(c, lab, name) for c, lab, name in result.dice]


#: Teaching Pyramido's blocks: the fewest plain quarter cells of a colour (a block shows four, less its icon),
#: the least CIELAB distance between two colours' clusters (the five are far apart: 29-40 on renders under
#: changed white balance and exposure), and the farthest a taught colour may lie from the one it replaces
#: (beyond it the camera saw something else: a hand, a coloured cloth).
BLOCK_CELLS_MIN = 2
BLOCK_SEPARATION_MIN = 15.0
BLOCK_SHIFT_MAX = 45.0


def teach_blocks(store: Any, image: np.ndarray, players: int | None = None) -> list[tuple[str, Any, int]]:
    """Teach Pyramido's five block colours from player 1's pyramid in ``image`` (dominoes laid there so that each
    colour shows at least once): the plain quarter cells read there are measured as the reader sees them
    (white-balanced on the mat's paper, :func:`vision.pyramido_read.measure_cells`), grouped in five clusters,
    and the clusters named by the assignment of all five closest to the colours known so far, so the order on
    the mat does not matter and a colour named wrong by the old palette is still named right. Returns (name, Lab,
    cells) per colour; a ValueError says what to lay out when five colours are not clearly seen (nothing is
    taught then)."""
    import itertools

    from engine.pyramido.dominoes import COLOURS
    from vision.pyramido_read import Palette, PyramidReader, measure_cells

    reg = locate(image, "pyramido", players)
    view = reg.zone("pyramid-1")
    if view is None:
        raise ValueError("player 1's pyramid mat is not in view: lay it under the camera, with dominoes showing "
                         "each of the five colours on it")
    known = Palette.from_lessons(store.taught("pyramido", "block"))
    reading = PyramidReader(known).read(image, view, None, seat=0)
    cells = [c for c in reading.cells if c.colour is not None and not c.icon and c.occupied_conf >= 0.9]
    if len(cells) < BLOCK_CELLS_MIN * len(COLOURS):
        raise ValueError(f"{len(cells)} plain quarter cells of blocks seen on player 1's pyramid mat: lay dominoes "
                         "there so that each of the five colours shows at least once")
    # Each cell's own median colour (measure_cells groups the cells by the name given: each cell is its own
    # "name" here), then five clusters of them.
    own: dict[Any, tuple[Any, bool]] = {c.cell: (c.cell, False) for c in cells}
    per_cell: dict[Any, tuple[float, float, float]] = dict(measure_cells(reading, own, image, view))
    points = np.array([per_cell[c.cell] for c in cells if c.cell in per_cell], np.float32)
    cv2.setRNGSeed(0)  # k-means++ seeding: the same frame teaches the same colours
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 50, 0.1)
    _, labels, centres = cv2.kmeans(points, len(COLOURS), None, criteria, 8, cv2.KMEANS_PP_CENTERS)
    sizes = np.bincount(labels.ravel(), minlength=len(COLOURS))
    refs = np.array([known.lab[c] for c in COLOURS], np.float32)
    order = min(itertools.permutations(range(len(COLOURS))),
                key=lambda p: float(sum(np.linalg.norm(centres[p[i]] - refs[i]) for i in range(len(COLOURS)))))
    separation = min(float(np.linalg.norm(a - b)) for a, b in itertools.combinations(centres, 2))
    shifts = [float(np.linalg.norm(centres[order[i]] - refs[i])) for i in range(len(COLOURS))]
    if sizes.min() < BLOCK_CELLS_MIN or separation < BLOCK_SEPARATION_MIN:
        raise ValueError("five block colours are not clearly seen on player 1's pyramid mat (two look alike, or "
                         "one is missing): lay dominoes there so that each of the five colours shows at least once")
    far = [COLOURS[i].value for i in range(len(COLOURS)) if shifts[i] > BLOCK_SHIFT_MAX]
    if far:
        raise ValueError(f"what was seen as {', '.join(far)} is far from any block colour: is a hand, a cloth or "
                         "a coloured light over the mat? Nothing was taught")
    taught = []
    for i, colour in enumerate(COLOURS):
        members = points[labels.ravel() == order[i]]
        lab = tuple(round(float(v), 2) for v in np.median(members, axis=0))
        store.teach("pyramido", "block", colour.value, lab)
        taught.append((colour.value, lab, len(members)))
    return taught


def _size(text: str) -> tuple[int, int]:
    w, sep, h = text.lower().partition("x")
    if not sep or not w.isdigit() or not h.isdigit() or int(w) < 64 or int(h) < 64:
        raise UsageError(f"--size {text!r}: give WxH, e.g. 1280x960")
    return int(w), int(h)


def eval_command(args: argparse.Namespace) -> int:
    from vision.lab.mat_render import CONDITIONS, camera_advice, evaluate

    if args.advice:
        print("camera advice: every sheet of a 2-player game, straight down, the table filling 90% of the frame")
        for row in camera_advice():
            print(f"  {row['game']:12s} table {row['table_mm']} mm, {row['frame']}: {row['px_per_mm']} px/mm, "
                  f"a {row['smallest_piece']} is {row['smallest_piece_px']} px ({row['located']}/{row['sheets']} "
                  "sheets located)")
        return 0
    if args.frames < 1:
        raise UsageError(f"--frames {args.frames}: at least 1")
    size = _size(args.size)
    games = GAMES if args.game == "all" else (args.game,)
    rows = []
    print(f"registration on rendered {size[0]}x{size[1]} frames, {args.frames} per line, seed {args.seed}, "
          "every sheet of a 2-player game in each frame; mapping error over a 5x5 grid of points on every zone")
    for game in games:
        for condition in CONDITIONS:
            r = evaluate(game, args.frames, args.seed, size, 2, condition, sheets=len(mats(game, 2)), k1=args.k1)
            rows.append(r)
            print(f"  {game:12s} {r['condition']:42s} located {r['mats_located']}/{r['mats_total']}, "
                  f"{r['px_per_mm_min']:.2f}-{r['px_per_mm_median']:.2f} px/mm (min-median); median "
                  f"{r['median_mm']:.2f} mm, p95 {r['p95_mm']:.2f}, max {r['max_mm']:.2f}; at >= 1 px/mm median "
                  f"{r['median_mm_at_1px_per_mm']:.2f}, p95 {r['p95_mm_at_1px_per_mm']:.2f} "
                  f"({r['mats_below_1px_per_mm']} mats below); mats off by > 1 mm somewhere: "
                  f"{r['mats_over_1mm_flagged']} said, {r['mats_over_1mm_silent']} silent", flush=True)
    if args.out is not None:
        import csv

        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
        print(f"wrote {args.out}")
    return 0
