"""Render a recording of a simulated Pyradice game (``companion record pyradice``): frames and their truth.

One table throughout (the cloth, the mats' layout, the camera, each board's lattice and the quarry board drawn
from the same seed for every frame, :func:`vision.lab.pyradice_render.render_table`'s ``geometry``), the game played
by seeded players with a simple policy (a random available die, a random legal slot, the skill used half the
time with a random legal use). What a turn looks like to the camera:

- a hand over the table as the die is lifted and placed (motion frames), then the die in its slot and the
  quarry position empty (still frames, sharing one image file);
- when the skill step follows: the player either taps "no skill" on the page (``pass``, a choice only a person
  can make) or changes dice by hand (a hand again, then still frames) and presses CONFIRM to end the skill step
  (the issue's "NEXT or CONFIRM ending the skill step"); an A2 re-roll is recorded with the value it came up.

The first player's roll-off is entered on the page (the camera does not read it). Nothing the camera is meant to
read is scripted: the replay's "players" answer the device's questions from the true actions, counted. The
"table" section names the player count and the colours taught at set-up (the players name one die of each
colour on a board: here the reader's measure of up to three dice of each colour on a set-up frame, named by the
truth). A condition (:mod:`vision.conditions`) is applied to every frame, the teaching frame included.
Everything is rendered: no photograph of real Pyradice pieces exists.
"""

from __future__ import annotations

import json
import random
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from device.recording import FORMAT
from engine.game import find_game
from engine.pyradice.pyramid import slot_text
from engine.pyradice.quarry import position_text
from engine.pyradice.state import Pass, Phase, PyradiceState, Skill

SIZE = (1280, 960)
FPS = 5.0
STILL_FRAMES = 7  # per settle: the filter accepts after 3 agreeing still frames; inputs come after
INPUT_AT = 5
JPEG_QUALITY = 90
NAMES = ("Anna", "Ben", "Cleo", "Dan")
#: How often the simulated players use a skill when one is legal.
SKILL_SHARE = 0.5


def truth_json(truth: Any) -> dict[str, Any]:
    """A rendered frame's truth (:class:`vision.lab.pyradice_render.TableTruth`) as the recording keeps it."""
    return {
        "boards": {str(seat): {slot_text(s): str(d) for s, d in sorted(b.dice.items())}
                   for seat, b in sorted(truth.boards.items())},
        "quarry": {position_text(p): str(d) for p, d in sorted(truth.quarry.items())},
        "covered": sorted(position_text(p) for p in truth.covered),
        "reserves": {str(seat): (None if d is None else str(d)) for seat, d in sorted(truth.reserves.items())},
        "hidden": {"slots": sorted(f"{seat}:{slot_text(s)}" for seat, s in truth.hidden_slots),
                   "positions": sorted(position_text(p) for p in truth.hidden_positions),
                   "reserves": sorted(truth.hidden_reserves)},
    }


class _Recorder:
    """Frames of one table: still frames share an image file; motion frames show a hand."""

    def __init__(self, out: Path, seed: int, players: int, condition: Any, size: tuple[int, int]) -> None:
        from vision.lab.mat_render import random_view
        from vision.lab.pyradice_render import random_table_style

        self.out, self.seed, self.players, self.condition, self.size = out, seed, players, condition, size
        self.view = random_view(np.random.default_rng([seed, players, 2]), max_tilt=25.0)
        self.style = replace(random_table_style(np.random.default_rng([seed, players, 3]), hand=0.0), hand=False)
        self.frames: list[dict[str, Any]] = []
        self.images = 0
        self.t = 0.0
        #: How many of the true actions the players have taken by the frames rendered now (the table shows
        #: them, or they were tapped on the page before): the replay's players answer with no later action.
        self.done = 0

    def render(self, state: PyradiceState, hand: bool) -> tuple[str, dict[str, Any], Any]:
        from vision.lab.pyradice_render import render_table

        rng = np.random.default_rng([self.seed, self.players, 11, self.images])
        geometry = np.random.default_rng([self.seed, self.players, 5])
        # A die nobody touched keeps its pose and look from picture to picture (``looks``), as on a real table.
        drawn = render_table(state, rng, self.size, self.view, replace(self.style, hand=hand), geometry=geometry,
                             looks=(self.seed, self.players, 13))
        image = drawn.image
        if self.condition is not None:
            image = self.condition.apply(image, f"{self.seed}-{self.images}")
        name = f"frames/{self.images:04d}.jpg"
        cv2.imwrite(str(self.out / name), image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        self.images += 1
        return name, truth_json(drawn.truth), drawn

    def frame(self, name: str, truth: dict[str, Any], inputs: list[dict[str, Any]] | None = None) -> None:
        truth = {**truth, "done": self.done}
        self.frames.append({"file": name, "t": round(self.t, 3), "truth": truth, "inputs": list(inputs or [])})
        self.t += 1 / FPS

    def moving(self, state: PyradiceState) -> None:
        """A hand over the table while pieces move (one frame; the filter needs no more to see motion)."""
        name, truth, _ = self.render(state, hand=True)
        self.frame(name, truth)

    def still(self, state: PyradiceState, inputs: list[dict[str, Any]] | None = None,
              count: int = STILL_FRAMES) -> None:
        name, truth, _ = self.render(state, hand=False)
        for i in range(count):
            self.frame(name, truth, inputs if i == INPUT_AT and inputs else None)


def _teaching(rec: _Recorder, state: PyradiceState) -> dict[str, list[float]]:
    """The colours taught at set-up: the reader's measure of dice on the boards, named by the truth (the
    median of up to three dice a colour, as :meth:`vision.pyradice_read.PyradiceReader.teach` takes them)."""
    from vision.pyradice_read import PyradiceReader, _teach_from_truth
    from vision.registration import locate

    _, _, drawn = rec.render(state, hand=False)
    rec.images -= 1  # the teaching frame is no frame of the recording
    (rec.out / "frames" / f"{rec.images:04d}.jpg").unlink(missing_ok=True)
    image = drawn.image if rec.condition is None else rec.condition.apply(drawn.image, f"{rec.seed}-teach")
    reader = PyradiceReader(rec.players)
    _teach_from_truth(reader, drawn, image, locate(image, "pyradice", rec.players))
    return {name: [round(float(v), 2) for v in lab] for name, lab in reader.palette.colours}


def _teaching_state(seed: int, players: int) -> PyradiceState:
    """A table at set-up with a few dice on each board to name (a seeded game some placements in)."""
    from vision.lab.pyradice_render import seeded_state

    return seeded_state(seed, players, 3 * players)


def play(seed: int, players: int) -> tuple[PyradiceState, list[Any]]:
    """The seeded game the recording shows: its set-up and its actions (A2 re-rolls carry their value)."""
    game = find_game("pyradice")
    rng = random.Random(seed)
    state = game.initial_state(list(NAMES[:players]), seed=seed)
    start = state
    actions: list[Any] = []
    while state.phase is not Phase.OVER:
        if state.phase is Phase.ROLL_OFF:
            action = game.random_chance(state, rng)
        else:
            legal = game.legal_actions(state)
            if state.phase is Phase.SKILL:
                uses = [a for a in legal if isinstance(a, Skill)]
                action = rng.choice(uses) if uses and rng.random() < SKILL_SHARE else Pass()
                if isinstance(action, Skill) and action.code == "A2" and action.value is None:
                    action = Skill("A2", action.target, value=rng.randint(1, 6))
            else:
                action = rng.choice(legal)
        state = game.apply(state, action)
        actions.append(action)
    return start, actions


def make(out: Path, seed: int, players: int = 2, condition: str | None = None,
         size: tuple[int, int] = SIZE, teach: bool = True) -> dict[str, Any]:
    """Render the recording of seeded game ``seed`` for ``players`` into ``out`` (replaced); return its data.
    ``teach=False`` leaves the colours untaught (the nominal palette; a recording for the truth reader)."""
    from vision.conditions import parse_condition

    game = find_game("pyradice")
    if not game.min_players <= players <= game.max_players:
        raise ValueError(f"a Pyradice recording takes {game.min_players} to {game.max_players} players, got {players}")
    changed = parse_condition(condition) if condition else None
    if out.exists():
        shutil.rmtree(out)
    (out / "frames").mkdir(parents=True)
    rec = _Recorder(out, seed, players, changed, size)
    lessons = _teaching(rec, _teaching_state(seed, players)) if teach else {}
    state, actions = play(seed, players)
    # Set-up: the table still; the roll-off is entered on the page.
    # Every page input carries ``at``, the number of actions the page showed when it was tapped (as the page's
    # own /api/action does): the player taps when the page shows their step, never for another one.
    rolls = []
    k = 0
    while k < len(actions) and state.phase is Phase.ROLL_OFF:
        rolls.append({"kind": "action", "text": game.action_text(actions[k]), "at": k})
        state = game.apply(state, actions[k])
        k += 1
    rec.still(state, rolls)
    rec.done = k
    while k < len(actions):
        take, place = actions[k], actions[k + 1]
        held = game.apply(state, take)
        rec.done = k + 1
        rec.moving(held)
        state = game.apply(held, place)
        k += 2
        rec.done = k
        rec.moving(state)
        if state.phase is Phase.SKILL:
            decision = actions[k]
            if isinstance(decision, Pass):
                rec.still(state, [{"kind": "action", "text": "pass", "at": k}])
                state = game.apply(state, decision)
            else:
                rec.still(state)
                rec.moving(state)  # the hand reaches in (the filter wants two frames of motion)
                state = game.apply(state, decision)
                rec.done = k + 1
                rec.moving(state)
                rec.still(state, [{"kind": "press", "button": "confirm", "at": k}])
            k += 1
            rec.done = k
        else:
            rec.still(state)
    rec.still(state, count=5)
    record = _record(game, actions, players, seed)
    scale = changed.amount if changed is not None and changed.kind == "scale" else 1.0
    data: dict[str, Any] = {
        "format": FORMAT,
        "game": "pyradice",
        "players": list(NAMES[:players]),
        "options": {},
        "seed": seed,
        "size": [round(size[0] * scale), round(size[1] * scale)],
        "fps": FPS,
        **({"condition": str(changed)} if changed is not None else {}),
        "table": {"players": players, "lessons": {"die": lessons} if lessons else {}, "rendered": True},
        "frames": rec.frames,
        "expected": {"actions": record["actions"], "sheet": record["sheet"], "winners": record["winners"]},
    }
    (out / "recording.json").write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    return data


def _record(game: Any, actions: list[Any], players: int, seed: int) -> dict[str, Any]:
    """The true record, built as Paša's recorder builds it (``game_record_json`` of an event-log record)."""
    from device.eventlog import GameRecord
    from device.session import game_record_json

    record = GameRecord(id=0, game="pyradice", players=NAMES[:players], options={}, mode="camera", created=0.0,
                        finished=None, actions=tuple(game.action_to_json(a) for a in actions),
                        origins=("sim",) * len(actions), seed=seed)
    return game_record_json(record)


__all__ = ["NAMES", "make", "play", "truth_json"]
