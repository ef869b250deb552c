"""Render the bundled demo recording: a complete two-player game of Paša-řada-pyramida, from a simulated
game, with the project's own dice renderer (:mod:`vision.lab.render`).

``python -m device.make_recording [OUT] [--seed N] [--players K] [--condition KIND:AMOUNT]`` writes
``OUT/recording.json`` and ``OUT/frames/``; a condition (:mod:`vision.conditions`: scale, exposure, white
balance, blur, noise, JPEG) is applied to every frame, as if the camera had taken the game so.
Every throw is shown as a hand over the tray, dice tumbling into place, then still frames (which share
one image file, so the folder stays small). The game includes re-rolls, a cocked die that a player
then lays flat, a hard-to-read die (low pip contrast, read as the wrong face and flagged unsure) that
is corrected on the page, a black, a white and a corrupt frame, and the players' inputs (category
chosen on the page, turn ended by a long CONFIRM or on the page). The true score sheet comes from
the engine playing the same actions.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from device.recording import FORMAT, true_record
from engine.game import find_game
from vision.lab import render

SIZE = (1280, 960)
SIDE = 74.0
FPS = 5.0
STILL_FRAMES = 7  # per settle: the filter accepts after 3 agreeing still frames; inputs come after
JPEG_QUALITY = 45
PLAYERS = ("Anna", "Ben")
NAMES = ("Anna", "Ben", "Cyril", "Dana", "Emil", "Fanny", "Gustav", "Hana")
STYLE = render.SceneStyle(surface=(70, 110, 60), grain=2.0, light_gradient=0.12, shadow=0.3,
                          camera_height=6.0, blur=0.6, noise=1.0, jpeg_quality=95, tray=True)


@dataclass
class Die:
    value: int
    centre: tuple[float, float]
    angle: float
    tilt: float = 0.0
    hard: bool = False  # low pip contrast: a reader is unsure
    read_as: int | None = None


@dataclass
class Script:
    frames: list[dict[str, Any]] = field(default_factory=list)
    images: int = 0


class Renderer:
    def __init__(self, out: Path, seed: int, condition: Any = None) -> None:
        self.out = out
        self.condition = condition
        self.rng = np.random.default_rng(seed)
        self.script = Script()
        self.t = 0.0
        self.pending_inputs: list[dict[str, Any]] = []
        self._last_still: tuple[Any, tuple[str, list[dict[str, Any]]]] | None = None

    def _image(self, dice: list[Die], hand: tuple[float, float] | None = None) -> tuple[str, list[dict[str, Any]]]:
        rng = np.random.default_rng(self.script.images + 1000)
        image = render.render_surface(rng, SIZE[0], SIZE[1], STYLE)
        truth = []
        for d in dice:
            spec = render.DieSpec(value=d.value, centre=d.centre, side=SIDE, angle=d.angle, tilt=d.tilt,
                                  tilt_direction=30.0, pip_contrast=0.3 if d.hard else 1.0, colour_name="white")
            drawn = render.draw_die(image, spec, STYLE, rng)
            item: dict[str, Any] = {
                "box": [round(v, 1) for v in drawn.box], "centre": [round(v, 1) for v in drawn.centre],
                "angle": round(drawn.angle % 90, 1), "value": d.value, "colour": "white",
                "unsure": d.hard, "cocked": d.tilt > 0,
            }
            if d.read_as is not None:
                item["read_as"] = d.read_as
            truth.append(item)
        if hand is not None:
            _draw_hand(image, hand)
        final = render.finish(image, rng, STYLE)
        if self.condition is not None:
            final = self.condition.apply(final, str(self.script.images))
            truth = [self._moved(item) for item in truth]
        name = f"frames/{self.script.images:04d}.jpg"
        cv2.imwrite(str(self.out / name), final, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        self.script.images += 1
        return name, truth

    def _moved(self, item: dict[str, Any]) -> dict[str, Any]:
        """A die's truth where it lies in the frame as the condition changed it (only scale moves it)."""
        if self.condition is None or self.condition.kind != "scale":
            return item
        a = self.condition.amount
        return {**item, "box": [round(v * a, 1) for v in item["box"]],
                "centre": [round(v * a, 1) for v in item["centre"]]}

    def at(self, centre: tuple[float, float]) -> list[float]:
        """Where a player points at a die, in the frame as taken."""
        a = self.condition.amount if self.condition is not None and self.condition.kind == "scale" else 1.0
        return [round(c * a, 1) for c in centre]

    def frame(self, name: str, truth: list[dict[str, Any]]) -> None:
        self.script.frames.append({"file": name, "t": round(self.t, 3), "dice": truth,
                                   "inputs": self.pending_inputs})
        self.pending_inputs = []
        self.t += 1 / FPS

    def still(self, dice: list[Die], count: int = STILL_FRAMES, inputs_at: int = 5,
              inputs: list[dict[str, Any]] | None = None) -> None:
        key = [(d.value, d.centre, d.angle, d.tilt, d.hard, d.read_as) for d in dice]
        if self._last_still is not None and self._last_still[0] == key:
            name, truth = self._last_still[1]  # the same table: the same picture
        else:
            name, truth = self._image(dice)
            self._last_still = (key, (name, truth))
        for i in range(count):
            if i == inputs_at and inputs:
                self.pending_inputs.extend(inputs)
            self.frame(name, truth)

    def throw(self, before: list[Die], after: list[Die], moving: set[int]) -> None:
        """A hand over the tray, then the thrown dice tumbling from the hand into their places."""
        hand = (float(self.rng.uniform(300, 980)), float(self.rng.uniform(250, 700)))
        kept = [d for i, d in enumerate(before) if i not in moving] if before else []
        self.frame(*self._image(kept, hand))
        for step in (0.5, 0.9):
            tumbling = []
            for i, d in enumerate(after):
                if i in moving or not before:
                    x = hand[0] + (d.centre[0] - hand[0]) * step
                    y = hand[1] + (d.centre[1] - hand[1]) * step
                    tumbling.append(Die(d.value if step > 0.8 else 1 + (d.value + int(step * 10)) % 6, (x, y),
                                        d.angle + 90 * (1 - step)))
                else:
                    tumbling.append(d)
            self.frame(*self._image(tumbling))


def _draw_hand(image: np.ndarray, at: tuple[float, float]) -> None:
    skin = (120.0, 150.0, 205.0)
    x, y = at
    cv2.ellipse(image, (int(x), int(y)), (130, 95), 20, 0, 360, skin, -1)
    for k in range(4):
        a = math.radians(-60 + k * 25)
        tip = (int(x + 210 * math.cos(a)), int(y + 210 * math.sin(a)))
        cv2.line(image, (int(x), int(y)), tip, skin, 34)
    cv2.line(image, (int(x), int(y)), (int(x - 150), int(y + 120)), skin, 40)


def _place(rng: random.Random, count: int, taken: list[Die]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    while len(out) < count:
        c = (rng.uniform(180, SIZE[0] - 180), rng.uniform(160, SIZE[1] - 160))
        if all(math.dist(c, d.centre) > SIDE * 1.9 for d in taken) and all(math.dist(c, o) > SIDE * 1.9 for o in out):
            out.append(c)
    return out


def _keep_for(category: str, dice: list[int]) -> list[int]:
    numbers = {"ones": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 5, "sixes": 6}
    if category in numbers:
        return [d for d in dice if d == numbers[category]]
    if category == "rada":
        return sorted(set(dice))
    counts = Counter(dice)
    if category == "pyramida":
        top = [v for v, _ in counts.most_common(2)]
        return [d for d in dice if d in top][:5]
    return [d for d in dice if d % 2 == 0 and counts[d] >= 2]


def make(out: Path, seed: int = 7, players: int = 2, condition: str | None = None) -> dict[str, Any]:
    game = find_game("pasa")
    if not game.min_players <= players <= min(game.max_players, len(NAMES)):
        raise ValueError(f"a Paša recording takes {game.min_players} to {len(NAMES)} players, got {players}")
    names = NAMES[:players]
    from vision.conditions import parse_condition

    changed = parse_condition(condition) if condition else None
    rules = __import__("engine.pasa", fromlist=["score", "Roll", "Choose", "Stop"])
    rng = random.Random(seed)
    if out.exists():
        shutil.rmtree(out)
    (out / "frames").mkdir(parents=True)
    r = Renderer(out, seed, changed)
    state = game.initial_state(names, {})
    actions: list[Any] = []

    def act(action: Any) -> None:
        nonlocal state
        state = game.apply(state, action)
        actions.append(action)

    r.still([], count=3)
    table: list[Die] = []
    turn = 0
    while not game.status(state).finished:
        # Roll 1: all six dice.
        values = [rng.randint(1, 6) for _ in range(6)]
        new = [Die(v, c, rng.uniform(0, 90)) for v, c in zip(values, _place(rng, 6, []), strict=True)]
        r.throw(table, new, set(range(6)))
        table = new
        act(rules.Roll(tuple(sorted(values))))
        open_ = state.open_categories()
        category = max(open_, key=lambda c: (rules.score(c, values, state.rule), -open_.index(c)))
        if turn == 5:  # a hard-to-read die: read as the wrong face, flagged unsure, corrected on the page
            hard = 2
            table[hard] = Die(table[hard].value, table[hard].centre, table[hard].angle, hard=True,
                              read_as=table[hard].value % 6 + 1)
            r.still(table, count=10, inputs_at=6, inputs=[
                {"kind": "correct", "at": r.at(table[hard].centre), "value": table[hard].value}])
            table[hard] = Die(table[hard].value, table[hard].centre, table[hard].angle)
        r.still(table, inputs=[{"kind": "action", "text": f"choose {category}"}])
        act(rules.Choose(category))
        for reroll in (1, 2):
            keep = _keep_for(category, [d.value for d in table])
            if len(keep) == 6 or rules.score(category, [d.value for d in table], state.rule) >= 20:
                break
            if reroll == 2 and rng.random() < 0.3:
                break
            kept_idx: list[int] = []
            left = Counter(keep)
            for i, d in enumerate(table):
                if left[d.value] > 0:
                    left[d.value] -= 1
                    kept_idx.append(i)
            moving = {i for i in range(6) if i not in kept_idx}
            while True:
                new_values = {i: rng.randint(1, 6) for i in moving}
                if tuple(sorted(new_values.get(i, d.value) for i, d in enumerate(table))) != tuple(state.dice):
                    break
            places = _place(rng, len(moving), [table[i] for i in kept_idx])
            after = list(table)
            for (i, v), c in zip(sorted(new_values.items()), places, strict=True):
                after[i] = Die(v, c, rng.uniform(0, 90))
            r.throw(table, after, moving)
            table = after
            act(rules.Roll(tuple(sorted(d.value for d in table))))
            if turn == 2 and reroll == 1:  # a cocked die: shown, not accepted, then laid flat by a hand
                cocked = sorted(moving)[0]
                d = table[cocked]
                table[cocked] = Die(d.value, d.centre, d.angle, tilt=24.0)
                r.still(table)
                table[cocked] = d
                r.frame(*r._image(table, (d.centre[0] + 160, d.centre[1] + 120)))
            if turn == 4 and reroll == 1:  # corrupt frames in the middle of a still table change nothing
                name, truth = r._image(table)
                for bad in ("black", "white", "corrupt"):
                    bad_name = f"frames/{bad}.jpg"
                    if bad == "corrupt":
                        (out / bad_name).write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
                    else:
                        cv2.imwrite(str(out / bad_name), np.full((SIZE[1], SIZE[0], 3), 0 if bad == "black" else 255,
                                                                 np.uint8))
                    r.frame(name, truth)
                    r.frame(bad_name, truth)
            r.still(table, count=STILL_FRAMES, inputs=None)
        stop_input = ({"kind": "press", "button": "confirm", "long": True} if turn % 2 == 0
                      else {"kind": "action", "text": "stop"})
        r.still(table, inputs=[stop_input])
        act(rules.Stop())
        turn += 1
    r.still(table, count=5)
    record = game_record_json_from(game, actions, names)
    scale = changed.amount if changed is not None and changed.kind == "scale" else 1.0
    data = {
        "format": FORMAT,
        "game": "pasa",
        "players": list(names),
        "options": {},
        "size": [round(SIZE[0] * scale), round(SIZE[1] * scale)],
        "fps": FPS,
        "seed": seed,
        **({"condition": str(changed)} if changed is not None else {}),
        "frames": r.script.frames,
        "expected": {"actions": record["actions"], "sheet": record["sheet"], "winners": record["winners"]},
    }
    (out / "recording.json").write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n", encoding="utf-8")
    return data


def game_record_json_from(game: Any, actions: list[Any], players: tuple[str, ...] = PLAYERS) -> dict[str, Any]:
    return true_record(game, players, actions)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", default=str(Path(__file__).with_name("recordings") / "pasa-2p"))
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--condition", metavar="KIND:AMOUNT", help="a camera condition applied to every frame")
    args = parser.parse_args(argv)
    data = make(Path(args.out), args.seed, args.players, args.condition)
    size = sum(p.stat().st_size for p in Path(args.out).rglob("*") if p.is_file())
    print(f"{len(data['frames'])} frames, {size / 1e6:.1f} MB, sheet: "
          f"{ {n: s['total'] for n, s in data['expected']['sheet'].items()} }")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
