"""Render a recording of a seeded Pyramido game: every turn at the table as camera frames, with its truth.

``companion record pyramido --seed N --players K --out DIR [--condition KIND:AMOUNT]`` (K = 1: solo against
the Legend) writes ``DIR/recording.json`` and ``DIR/frames/`` (the format of :mod:`device.recording`). The
game is walked with the engine from ``initial_state(players, seed=N)`` (so the deck is the seeded one and a
replay with the same seed knows it); the players' choices (which domino and gem, which pile to flip, where
to place) and the gems drawn come from a generator seeded by N. Each turn is shown twice, as at the table:
once the domino is taken, the gem area refilled and a pile flipped (the domino in the player's hand, off the
mats), and once it is placed (and, in solo play, the Legend's turn done); each time a hand moves over the
table (two motion frames), then still frames that share one image file.

The players' inputs are only what the camera is not meant to read: at each stage end one long CONFIRM per
step of the suggested activation (the device's optimiser, :func:`device.tables.pyramido.scoring_step`; the
players keep to it). The discards down to five gems are put back on the table and read from the inventory spot
(the table is shown after each player's discards; ``discards_seen=False``: entered on the page, as the
recordings before session 15 did). The true record (``expected``) is the engine's record of the same actions, as
:mod:`device.make_recording` builds it for Paša. The frames are drawn by the project's own renderer
(:mod:`vision.lab.pyramido_render`, lab code, imported here lazily): no photograph of Pyramido pieces exists.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from device.recording import FORMAT
from device.session import game_record_json
from engine.errors import GameError
from engine.game import find_game

FPS = 5.0
STILL_FRAMES = 6  # per settle: the filter accepts after 3 agreeing still frames; inputs come after
INPUTS_AT = 4
JPEG_QUALITY = 80
NAMES = ("Anna", "Ben", "Cleo", "Dan")


def truth_of(state: Any) -> dict[str, Any]:
    """What lies on the table in ``state``, as a frame's ``truth``: each pyramid's top view (quarter cell,
    colour letter, icon), each space (face-up domino, face-down count, gems) and each inventory."""
    pyramids = {}
    for seat, e in enumerate(state.explorers):
        pyramids[str(seat)] = [[x, y, v[0].letter, bool(v[1])] for (x, y), v in sorted(e.pyramid.top_view.items())]
    spaces = [{"face_up": str(s.face_up) if s.face_up is not None else None, "face_down": s.face_down,
               "gems": list(s.gems)} for s in state.spaces]
    return {"pyramids": pyramids, "spaces": spaces,
            "inventories": [list(e.inventory) for e in state.explorers]}


class _Frames:
    """The frame list and its image files; one file per distinct table (still frames share it)."""

    def __init__(self, out: Path, condition: Any) -> None:
        self.out = out
        self.condition = condition
        self.frames: list[dict[str, Any]] = []
        self.images = 0
        self.t = 0.0
        self.inputs: list[dict[str, Any]] = []

    def write(self, image: np.ndarray) -> str:
        if self.condition is not None:
            image = self.condition.apply(image, str(self.images))
        name = f"frames/{self.images:04d}.jpg"
        cv2.imwrite(str(self.out / name), image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        self.images += 1
        return name

    def frame(self, name: str, truth: dict[str, Any], inputs: list[dict[str, Any]] | None = None) -> None:
        self.frames.append({"file": name, "t": round(self.t, 3), "truth": truth, "inputs": inputs or []})
        self.t += 1 / FPS


def _hand_over(image: np.ndarray, rng: random.Random) -> np.ndarray:
    """A hand and forearm over the table (a player moving pieces): motion for the stability filter."""
    out = image.copy()
    h, w = out.shape[:2]
    x, y = rng.uniform(0.2 * w, 0.8 * w), rng.uniform(0.2 * h, 0.8 * h)
    skin = (120, 155, 205)
    cv2.ellipse(out, (int(x), int(y)), (int(0.08 * w), int(0.07 * h)), rng.uniform(0, 180), 0, 360, skin, -1)
    cv2.line(out, (int(x), int(y)), (int(x + rng.uniform(-1, 1) * 0.4 * w), int(h)), skin, int(0.07 * w))
    return out


def make(out: Path, seed: int = 7, players: int = 2, condition: str | None = None,
         stop_after: int | None = None, draw: bool = True, discards_seen: bool = True) -> dict[str, Any]:
    """Render the seeded game into ``out`` (replaced); returns the recording's data. ``stop_after``: end the
    recording after that many placements (a short game for tests; its expected record is the actions so far).
    ``discards_seen``: the discards down to five are left to the camera (the inventories are read), the table
    shown after each player's; False: entered on the page as before (the recordings of sessions 13-14).
    ``draw=False``: small placeholder pictures (one per table, a hand over it while pieces move) instead of the
    renderer's: a recording for the truth reader only (the pipeline's and the adapter's tests, in seconds)."""
    from device.tables.pyramido import scoring_step
    from engine.pyramido.game import Discard, Flip, PendingKind, Phase, Place, Take
    from vision.conditions import parse_condition
    from vision.lab import pyramido_render as pr
    from vision.pyramido_read import Palette, PyramidReader, measure_cells
    from vision.registration import MarkerFinder, locate

    game = find_game("pyramido")
    if not game.min_players <= players <= game.max_players:
        raise ValueError(f"a Pyramido recording takes {game.min_players} to {game.max_players} players, got {players}")
    names = NAMES[:players]
    changed = parse_condition(condition) if condition else None
    if out.exists():
        shutil.rmtree(out)
    (out / "frames").mkdir(parents=True)
    rng = random.Random(seed)
    state = game.initial_state(names, seed=seed)
    actions: list[Any] = []

    # The whole game first (the renderer lays each pyramid where its whole stage 1 fits the mat).
    states = [state]
    inputs_at: dict[int, list[dict[str, Any]]] = {}  # showing -> the players' inputs made there
    shows: list[int] = []  # state indices the camera is shown (a settle each)
    placements = 0

    def act(action: Any) -> None:
        nonlocal state
        state = game.apply(state, action)
        actions.append(action)
        states.append(state)

    def chance() -> None:
        while state.pending:
            head = state.pending[0]
            if head.kind is PendingKind.GEM_TO_SPACE:
                # The gems drawn into one area, in the order the camera names them (colours, then mythical):
                # which came out of the bag first cannot be seen, and the state is the same either way.
                n = 0
                while n < len(state.pending) and state.pending[n] == head:
                    n += 1
                probe = state
                drawn = []
                for _ in range(n):
                    draw = game.random_chance(probe, rng)
                    drawn.append(draw)
                    probe = game.apply(probe, draw)
                ordered = sorted(drawn, key=lambda d: d.gem.index)
                try:
                    probe = state
                    for draw in ordered:
                        probe = game.apply(probe, draw)
                except GameError:  # the bag ran out and was refilled from the discards between the draws
                    ordered = drawn
                for draw in ordered:
                    act(draw)
            else:
                act(game.random_chance(state, rng))

    chance()
    shows.append(len(states) - 1)
    while not game.status(state).finished and (stop_after is None or placements < stop_after):
        if state.phase is Phase.TAKE:
            act(rng.choice([a for a in game.legal_actions(state) if isinstance(a, Take)]))
            chance()
            if state.phase is Phase.FLIP:
                act(rng.choice([a for a in game.legal_actions(state) if isinstance(a, Flip)]))
                chance()
            shows.append(len(states) - 1)
        elif state.phase is Phase.PLACE:
            act(rng.choice([a for a in game.legal_actions(state) if isinstance(a, Place)]))
            placements += 1
            chance()
            shows.append(len(states) - 1)
        elif state.phase is Phase.SCORE:
            # The players reach over the table to put gems on their areas (motion), then press: a showing of its
            # own, so that a question still open from the last turn (the Legend's random gem) is asked first.
            # A player over five gems puts the extra ones back (the camera reads the inventory): the next
            # player's presses come on the table that shows it.
            at = len(states) - 1
            presses: list[dict[str, Any]] = []
            while state.phase is Phase.SCORE and not game.status(state).finished:
                seat = game.to_move(state)  # type: ignore[attr-defined]
                assert seat is not None
                e = state.explorers[seat]
                if len(e.stage_scores) < state.stage:
                    act(scoring_step(game, state))
                    presses.append({"kind": "press", "button": "confirm", "long": True})
                    chance()
                    continue
                act(rng.choice([a for a in game.legal_actions(state) if isinstance(a, Discard)]))
                chance()
                if discards_seen:  # this player done: the table shows it
                    if game.to_move(state) != seat or state.phase is not Phase.SCORE:  # type: ignore[attr-defined]
                        shows.append(at)
                        inputs_at[len(shows) - 1] = presses
                        presses = []
                        at = len(states) - 1
                else:
                    presses.append({"kind": "action", "text": game.action_text(actions[-1])})
            if presses:
                shows.append(at)
                inputs_at[len(shows) - 1] = presses
            shows.append(len(states) - 1)
        else:  # pragma: no cover - the engine has no other phase with a decision
            raise AssertionError(state.phase)

    final = states[-1]
    if not draw:
        return _placeholder(out, seed, players, names, states, shows, inputs_at, actions)
    table = pr.make_table(seed, players, final)
    draw_rng = np.random.default_rng([seed, 11])
    frames = _Frames(out, changed)
    finder = MarkerFinder()

    # Teaching: the players show the camera their blocks and name the colours (here, from the truth).
    teach = pr.render(table, final, draw_rng)
    image = teach.image if changed is None else changed.apply(teach.image, "teach")
    reg = locate(image, "pyramido", players, finder)
    lessons: dict[str, list[float]] = {}
    zv = reg.zone("pyramid-1")
    if zv is not None:
        reading = PyramidReader(Palette.nominal()).read(image, zv, final.explorers[0].pyramid.top_view, seat=0)
        taught = measure_cells(reading, teach.views[0], image, zv)
        lessons = {c.value: [round(v, 2) for v in lab] for c, lab in taught.items()}

    hand_rng = random.Random(seed + 1)
    still = ""
    for n, index in enumerate(shows):
        st = states[index]
        if n == 0 or index != shows[n - 1]:
            still = frames.write(pr.render(table, st, draw_rng).image)
        truth = truth_of(st)
        if n > 0:
            for _ in range(2):
                moving = cv2.imread(str(out / still))
                frames.frame(frames.write(_hand_over(moving, hand_rng)), truth)
        for k in range(STILL_FRAMES):
            frames.frame(still, truth, inputs_at.get(n) if k == INPUTS_AT else None)
    record = _record_json(game, actions, names, seed)
    scale = changed.amount if changed is not None and changed.kind == "scale" else 1.0
    w, h = table.camera.size
    data = {
        "format": FORMAT,
        "game": "pyramido",
        "players": list(names),
        "options": {},
        "seed": seed,
        "size": [round(w * scale), round(h * scale)],
        "fps": FPS,
        **({"condition": str(changed)} if changed is not None else {}),
        "table": {"players": players, "domino_mm": round(table.thickness_mm, 2), "lessons": lessons,
                  "renderer": "vision.lab.pyramido_render (no photograph of the pieces exists)"},
        "frames": frames.frames,
        "expected": {"actions": record["actions"], "sheet": record["sheet"], "winners": record["winners"]},
    }
    (out / "recording.json").write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    return data


def _placeholder(out: Path, seed: int, players: int, names: tuple[str, ...], states: list[Any], shows: list[int],
                 inputs_at: dict[int, list[dict[str, Any]]], actions: list[Any]) -> dict[str, Any]:
    frames = _Frames(out, None)
    hand_rng = random.Random(seed + 1)
    game = find_game("pyramido")
    for n, index in enumerate(shows):
        # A textured picture of its own per table (the stability filter sees pieces move between two tables).
        if n == 0 or index != shows[n - 1]:
            picture = np.random.default_rng([seed, n]).integers(60, 200, (24, 32, 3), dtype=np.uint8)
            image = cv2.resize(picture, (320, 240), interpolation=cv2.INTER_NEAREST)
            still = frames.write(image)
        truth = truth_of(states[index])
        if n > 0:
            for _ in range(2):
                frames.frame(frames.write(_hand_over(image, hand_rng)), truth)
        for k in range(STILL_FRAMES):
            frames.frame(still, truth, inputs_at.get(n) if k == INPUTS_AT else None)
    record = _record_json(game, actions, names, seed)
    data = {
        "format": FORMAT, "game": "pyramido", "players": list(names), "options": {}, "seed": seed,
        "size": [320, 240], "fps": FPS,
        "table": {"players": players, "placeholder": "no pictures: replay with --reader truth"},
        "frames": frames.frames,
        "expected": {"actions": record["actions"], "sheet": record["sheet"], "winners": record["winners"]},
    }
    (out / "recording.json").write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    return data


def _record_json(game: Any, actions: list[Any], names: tuple[str, ...], seed: int) -> dict[str, Any]:
    from device.eventlog import GameRecord

    record = GameRecord(id=0, game="pyramido", players=names, options={}, mode="camera", created=0.0,
                        finished=None, actions=tuple(game.action_to_json(a) for a in actions),
                        origins=("sim",) * len(actions), seed=seed)
    return game_record_json(record)


__all__ = ["make", "truth_of"]
