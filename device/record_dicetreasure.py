"""Render Dice Treasure recordings: a complete seeded game on the game's mats, frame by frame, with its truth.

``companion record dicetreasure --seed N --players K --out DIR [--condition KIND:AMOUNT]`` (K = 1: solo) calls
:func:`make`. A seeded engine game (:func:`engine.dicetreasure.simulate.eager_policy`) is played, and after each
action the table is laid out as players lay it (:class:`Table`): dealt cards on the first free spots of their
player's mat, dice on the spaces, the roll in the tray, the personal and common reserves; at the steal phase's
start the incomplete cards move to the middle and the claimed ones stay where they lay, filled (a claimed card in
view is no error); the solo game lays its claimed cards aside in the middle before its two new cards are dealt;
at a round's end the table is cleared. Every action that changes the table is shown as a hand over it (two
frames) and then still frames sharing one picture, drawn by the lab renderer
(:func:`vision.lab.dicetreasure_render.render_table`, one camera for the whole recording). An action the table does
not show (the leprechaun cards laid out, a claim, a turn ended with nothing left to move) has no frames: the
device asks, and the replay's players answer it from the true record (counted).

Each frame's ``truth`` is the table as it lies (:func:`truth_of`) and how many of the true actions it shows
(``done``: the replay's players answer nothing beyond them; :func:`mark_done` adds it to a recording made before
the recorder wrote it); the ``table`` section names the mats' player
count, the deck (the stand-in) and the dice colours taught from a rendered teaching frame (one die of each
colour in the tray, read by the reader under the same condition). ``draw="plain"`` writes cheap synthetic
pictures instead of renders (for replaying with the truth reader in tests: the pictures then only need to show
motion and stillness).
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from device.recording import FORMAT, expected_section, true_record
from engine.dice import Die
from engine.dicetreasure import GAME, Action, DiceTreasureState, EndTurn, MotifCard, Phase, Roll
from engine.dicetreasure.observe import newly_claimed
from engine.dicetreasure.simulate import eager_policy

SIZE = (1280, 960)
#: The frame a table of 3 or 4 players needs: at 1280x960 their five or six mats come out at 0.7-1.0 px/mm, a
#: die 11-16 px, and the device's own camera check refuses the table ("a die is 11 px across, the readers need
#: 16: ... use a higher resolution"); at 1920x1440 every mat of 6 rendered 3- and 4-player tables passes it
#: (1.0-1.6 px/mm). The camera is set so at such a table (``[camera] width``, ``height``).
LARGE_TABLE_SIZE = (1920, 1440)


def size_for(players: int) -> tuple[int, int]:
    """The camera frame a recording of ``players`` is rendered at (what the camera check asks for)."""
    return SIZE if players <= 2 else LARGE_TABLE_SIZE
FPS = 5.0
#: Still frames per change: the filter confirms motion over 2 frames, then settles after 3 agreeing reads.
STILL_FRAMES = 7
HAND_FRAMES = 2
JPEG_QUALITY = 90
NAMES = ("Anna", "Ben", "Cyril", "Dana")


def canonical(state: DiceTreasureState, action: Action) -> Action:
    """The action as the table shows it: a roll's dice and the dice kept in colour order, then face (the order
    dice lie in a tray or a reserve is no fact of the game, and the device names them so)."""
    order = {c: i for i, c in enumerate(state.dice_colours)}

    def tidy(dice: Sequence[Die]) -> tuple[Die, ...]:
        return tuple(sorted(dice, key=lambda d: (order.get(d.colour or "", 99), d.value)))

    if isinstance(action, Roll):
        return Roll(tidy(action.dice))
    if isinstance(action, EndTurn):
        return EndTurn(tidy(action.keep))
    return action


class Table:
    """Where each card lies (mat zone and spot), kept from action to action as players keep it."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.spots: dict[str, tuple[str, int]] = {}
        self.claimed: dict[str, tuple[Die | None, ...]] = {}  # claimed this round, still in view, filled

    def _free(self, zone: str, size: int) -> int:
        used = {spot for z, spot in self.spots.values() if z == zone}
        return next((i for i in range(size) if i not in used), -1)

    def _middle(self) -> tuple[str, int]:
        """A free spot of the middle (8 spots); with 3 or 4 players more cards may go there: then a free spot of
        a player's mat takes it (the game says where a card is, not its spot)."""
        spot = self._free("middle", 8)
        if spot >= 0:
            return ("middle", spot)
        for seat in range(1, self.players + 1):
            spot = self._free(f"motif-cards-{seat}", 4)
            if spot >= 0:
                return (f"motif-cards-{seat}", spot)
        raise ValueError("no free card spot on the table")

    def follow(self, before: DiceTreasureState, action: Action, after: DiceTreasureState) -> None:
        if after.round != before.round or (after.phase is Phase.OVER and isinstance(action, EndTurn)):
            # The round is over: every card and die leaves the table.
            self.spots.clear()
            self.claimed.clear()
        self.claimed.update(newly_claimed(before, action, after))
        in_play = {c.card.id for p in after.players for c in p.cards} | {c.card.id for c in after.middle}
        if after.solo and before.phase is not Phase.SOLO_DEAL and after.phase is Phase.SOLO_DEAL:
            # Solo, before the last turns: incomplete cards are discarded, the claimed ones laid in the middle.
            for card in list(self.spots):
                if card in self.claimed:
                    self.spots[card] = self._middle()
        for card in list(self.spots):
            if card not in in_play and card not in self.claimed:
                del self.spots[card]
        if after.steal and not before.steal and not after.solo:
            for cip in after.middle:  # the incomplete cards go to the middle
                self.spots[cip.card.id] = self._middle()
        for seat, player in enumerate(after.players, 1):
            for cip in player.cards:
                if cip.card.id not in self.spots:
                    self.spots[cip.card.id] = (f"motif-cards-{seat}", self._free(f"motif-cards-{seat}", 4))

    def layout(self, state: DiceTreasureState) -> dict[tuple[str, int], tuple[MotifCard, tuple[Die | None, ...]]]:
        cards: dict[str, tuple[MotifCard, tuple[Die | None, ...]]] = {}
        for player in state.players:
            for cip in player.cards:
                cards[cip.card.id] = (cip.card, cip.dice)
        for cip in state.middle:
            cards[cip.card.id] = (cip.card, cip.dice)
        claimed = {c.id: c for p in state.players for c in p.claimed}
        for card_id, dice in self.claimed.items():
            if card_id in claimed:
                cards[card_id] = (claimed[card_id], dice)
        return {self.spots[c]: entry for c, entry in cards.items() if c in self.spots}


def _dice(dice: Sequence[Die | None]) -> list[str | None]:
    return [str(d) if d is not None else None for d in dice]


def truth_of(state: DiceTreasureState, table: Table) -> dict[str, Any]:
    """What lies on the table: each card on its spot with its dice, the tray, the reserves (seat from 1)."""
    cards = [{"zone": zone, "spot": spot, "card": card.id, "dice": _dice(dice)}
             for (zone, spot), (card, dice) in sorted(table.layout(state).items())]
    tray = state.hand if state.phase in (Phase.TURN, Phase.SOLO_FILL) else ()
    return {"cards": cards, "tray": _dice(tray), "common": _dice(state.common),
            "reserves": {str(seat): _dice(p.reserve) for seat, p in enumerate(state.players, 1)}}


def _layout_from(truth: Mapping[str, Any], deck: Mapping[str, MotifCard]) -> Any:
    from vision.lab.dicetreasure_render import TableLayout

    cards = {(c["zone"], int(c["spot"])): (deck[c["card"]], tuple(Die.parse(d) if d else None for d in c["dice"]))
             for c in truth["cards"]}
    loose = {"tray": tuple(Die.parse(d) for d in truth["tray"]),
             "common-reserve": tuple(Die.parse(d) for d in truth["common"])}
    for seat, dice in truth["reserves"].items():
        loose[f"reserve-{seat}"] = tuple(Die.parse(d) for d in dice)
    return TableLayout(cards, loose)


def _plain(step: int, hand: bool) -> np.ndarray:
    """A cheap picture: one mark per change of the table (and a hand over it while moving)."""
    image = cv2.cvtColor(np.tile(np.linspace(60, 180, 320, dtype=np.uint8), (240, 1)), cv2.COLOR_GRAY2BGR)
    for k in range(step % 150):
        x, y = 8 + (k % 15) * 20, 8 + (k // 15) * 20
        cv2.rectangle(image, (x, y), (x + 12, y + 12), (40, 90, 200), -1)
    if hand:
        cv2.ellipse(image, (160 + (step % 5) * 10, 150), (90, 60), 20, 0, 360, (120, 150, 205), -1)
    return image


def _hand_over(image: np.ndarray, rng: random.Random) -> np.ndarray:
    """The still picture with a hand and arm reaching in from an edge (the table is being changed)."""
    out = image.copy()
    h, w = out.shape[:2]
    x, y = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h
    skin = (120, 150, 205)
    cv2.line(out, (int(x), int(y)), (int(x + 0.4 * w), h), skin, int(0.09 * w))
    cv2.ellipse(out, (int(x), int(y)), (int(0.08 * w), int(0.06 * w)), rng.uniform(0, 180), 0, 360, skin, -1)
    return out


def make(out: Path, seed: int = 7, players: int = 2, condition: str | None = None, *, actions: int | None = None,
         draw: str = "render", size: tuple[int, int] | None = None) -> dict[str, Any]:
    """Write a recording of a seeded Dice Treasure game to ``out`` (replaced); the recording's data.

    ``actions`` stops the game after that many actions (short recordings for tests); ``draw`` is "render"
    (the lab renderer, the condition applied to every frame) or "plain" (synthetic pictures, truth only);
    ``size`` the camera frame (default :func:`size_for` the players)."""
    size = size or size_for(players)
    if not GAME.min_players <= players <= GAME.max_players:
        raise ValueError(f"a Dice Treasure recording takes {GAME.min_players} to {GAME.max_players} players, "
                         f"got {players}")
    if draw not in ("render", "plain"):
        raise ValueError(f"draw is 'render' or 'plain', not {draw!r}")
    from vision.conditions import parse_condition

    changed = parse_condition(condition) if condition else None
    names = NAMES[:players]
    rng = random.Random(seed)
    if out.exists():
        shutil.rmtree(out)
    (out / "frames").mkdir(parents=True)
    state = GAME.initial_state(names, {}, seed=seed)
    deck = {c.id: c for c in state.draw_pile}
    table = Table(players)
    taken: list[Action] = []
    frames: list[dict[str, Any]] = []
    t = 0.0
    step = 0
    scale = changed.amount if changed is not None and changed.kind == "scale" else 1.0
    frame_size = size if draw == "render" else (320, 240)

    def picture(truth: Mapping[str, Any], hand: bool) -> np.ndarray:
        if draw == "plain":
            return _plain(step, hand)
        from vision.lab.dicetreasure_render import render_table
        from vision.mats import mats

        frame = render_table(_layout_from(truth, deck), mats("dicetreasure", players), seed, size, hands=0.0,
                             pieces=seed)
        image = frame.image
        if changed is not None:
            image = changed.apply(image, f"step-{step}")
        return image

    pending: list[dict[str, Any]] = []  # the frames of the table shown last: their ``done`` is known when it changes

    def mark(done: int) -> None:
        """Each frame's truth says how many of the true actions the table shows (``done``): every action taken
        before the one that changed the table again (a claim or a leprechaun card changes nothing on it), all of
        them at the end. The replay's players answer the device with no action beyond it (``device.appliance``):
        without it they answered for turns not yet on the table, the game ran ahead of it and every table behind
        it was asked about (tuning seed 4904 under blur: 163 answers of 213 actions)."""
        if pending:
            marked = {**pending[0]["truth"], "done": done}
            for entry in pending:
                entry["truth"] = marked
        pending.clear()

    def show(truth: dict[str, Any], finished: bool = False) -> None:
        nonlocal t, step
        mark(len(taken) - (0 if finished else 1))
        still = picture(truth, False)
        hand = _hand_over(still, rng) if draw == "render" else picture(truth, True)
        ext = "jpg" if draw == "render" else "png"
        names_ = (f"frames/{step:04d}-hand.{ext}", f"frames/{step:04d}.{ext}")
        for name, image in zip(names_, (hand, still), strict=True):
            cv2.imwrite(str(out / name), image, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        for k in range(HAND_FRAMES + STILL_FRAMES):
            frames.append({"file": names_[0] if k < HAND_FRAMES else names_[1], "t": round(t, 3), "truth": truth})
            pending.append(frames[-1])
            t += 1 / FPS
        step += 1

    truth = truth_of(state, table)
    show(truth)
    while state.phase is not Phase.OVER and (actions is None or len(taken) < actions):
        if state.phase in (Phase.TURN, Phase.SOLO_FILL):
            action = eager_policy(state, GAME.legal_actions(state), rng)
        else:
            action = GAME.random_chance(state, rng)
        action = canonical(state, action)
        before, state = state, GAME.apply(state, action)
        taken.append(action)
        table.follow(before, action, state)
        now = truth_of(state, table)
        if now != truth:
            truth = now
            show(truth)
    show(truth, finished=True)  # the last table, once more (a replay settles on it)
    mark(len(taken))
    record = true_record(GAME, names, taken, seed=seed)
    data: dict[str, Any] = {
        "format": FORMAT,
        "game": GAME.name,
        "players": list(names),
        "options": {},
        "seed": seed,
        "size": [round(frame_size[0] * scale), round(frame_size[1] * scale)],
        "fps": FPS,
        **({"condition": str(changed)} if changed is not None else {}),
        "table": _table_section(players, seed, changed, size) if draw == "render" else {"players": players,
                                                                                        "deck": "stand-in"},
        "frames": frames,
        "expected": expected_section(record),
    }
    (out / "recording.json").write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    return data


def mark_done(data: dict[str, Any]) -> dict[str, Any]:
    """A recording's data (as :func:`make` writes it, made before frames carried ``done``) with each frame truth's
    ``done`` as :func:`make` now writes it: the game re-run from the recording's seed and true actions, the table
    shown after each action that changes it. Raises ``ValueError`` when a frame's truth is not the re-run's table
    (another recorder, or another deck): nothing is guessed."""
    names = list(data["players"])
    state = GAME.initial_state(names, {}, seed=data["seed"])
    table = Table(len(names))
    truth = truth_of(state, table)
    shows: list[tuple[dict[str, Any], int]] = []
    for n, text in enumerate(data["expected"]["actions"]):
        action = GAME.parse_action(text, state)
        before, state = state, GAME.apply(state, action)
        table.follow(before, action, state)
        now = truth_of(state, table)
        if now != truth:
            shows.append((truth, n))  # shown until action n changed the table: the n actions before it
            truth = now
    total = len(data["expected"]["actions"])
    shows += [(truth, total), (truth, total)]  # the last table, shown twice (a replay settles on it)
    per = HAND_FRAMES + STILL_FRAMES
    frames = data["frames"]
    if len(frames) != per * len(shows):
        raise ValueError(f"{len(frames)} frames, but the game re-run shows {len(shows)} tables of {per} frames")
    marked = []
    for i, frame in enumerate(frames):
        want, done = shows[i // per]
        seen = {k: v for k, v in frame["truth"].items() if k != "done"}
        if seen != json.loads(json.dumps(want)):
            raise ValueError(f"frame {i} ({frame['file']}): its truth is not the table of the game re-run")
        marked.append({**frame, "truth": {**seen, "done": done}})
    return {**data, "frames": marked}


def _table_section(players: int, seed: int, changed: Any, size: tuple[int, int]) -> dict[str, Any]:
    """The mats' player count, the deck, and the dice colours taught at this (rendered) table: one die of each
    colour in the tray, read as the reader sees them under the recording's condition."""
    from engine.dicetreasure import sample_deck
    from vision.colour import PaletteError
    from vision.dicetreasure_read import DiceTreasureReader, teach_palette
    from vision.lab.dicetreasure_render import render_teaching
    from vision.registration import locate

    reader = DiceTreasureReader(sample_deck())
    # The owner lays the five dice out again when the reader does not see one of each (at 4 players and 1280x960 a
    # die can be missed: seed 4805's first teaching frame showed 4): up to three layouts, each its own render.
    for attempt in range(3):
        frame = render_teaching(seed + 999 + 1000 * attempt, players, size)
        image = frame.image if changed is None else changed.apply(frame.image, "teach")
        try:
            palette = teach_palette(reader, image, locate(image, "dicetreasure", players))
            break
        except PaletteError:
            if attempt == 2:
                raise
    return {"players": players, "deck": "stand-in",
            "lessons": {"die": {name: [round(v, 2) for v in lab] for name, lab in palette.colours}}}


def make_enrolment(out: Path, seed: int, cards: Sequence[MotifCard], condition: str | None = None) -> dict[str, Any]:
    """An enrolment recording: each card laid on player 1's first card spot in turn (every fifth upside down),
    a hand between cards, the same camera throughout; each frame's truth names the card lying there."""
    from vision.conditions import parse_condition
    from vision.lab.dicetreasure_render import render_enrolment

    changed = parse_condition(condition) if condition else None
    rng = random.Random(seed)
    if out.exists():
        shutil.rmtree(out)
    (out / "frames").mkdir(parents=True)
    frames: list[dict[str, Any]] = []
    t = 0.0
    for n, card in enumerate(cards):
        image = render_enrolment(card, seed, SIZE, upside_down=n % 5 == 4).image
        if changed is not None:
            image = changed.apply(image, f"enrol-{n}")
        names = (f"frames/{n:03d}-hand.jpg", f"frames/{n:03d}.jpg")
        for name, picture in zip(names, (_hand_over(image, rng), image), strict=True):
            cv2.imwrite(str(out / name), picture, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        for k in range(HAND_FRAMES + STILL_FRAMES):
            frames.append({"file": names[0] if k < HAND_FRAMES else names[1], "t": round(t, 3),
                           "truth": {"enrol": card.id}})
            t += 1 / FPS
    data: dict[str, Any] = {"format": FORMAT, "game": GAME.name, "players": ["Owner"], "options": {}, "seed": seed,
                            "size": list(SIZE), "fps": FPS, "table": {"players": 1, "enrolment": True},
                            **({"condition": str(changed)} if changed is not None else {}),
                            "frames": frames, "expected": {"cards": [c.id for c in cards]}}
    (out / "recording.json").write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    return data
