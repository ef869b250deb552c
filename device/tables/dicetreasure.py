"""Dice Treasure at the table: dice rolled in the tray and placed on the players' motif cards.

The readings of a frame are one :class:`Snapshot`: each card spot's card (identified against the deck) with the
die on each of its spaces and the doubts, and the dice of each loose zone (the tray, the common reserve, each
player's personal reserve) with whether all were read surely. :meth:`DiceTreasureTable.frame_reader` makes them
with :class:`vision.dicetreasure_read.DiceTreasureReader` (the mats located by registration, the dice colours
taught at the table), :meth:`DiceTreasureTable.truth_readings` from a recorded frame's truth.

The observation is :class:`CardsView`: for each card seen, the die on each of its spaces, and for each space
how sure the reader was (:class:`SeenSpace`), plus the cards on each player's mat, the tray and the reserves
where they were read surely. :meth:`DiceTreasureTable.explain` asks :func:`engine.dicetreasure.observe.
explain_table` which legal actions turn the game into that table (cards dealt, the roll, placements and the
exchanges they need, the end of the turn from the reserves, the solo fill); a space the reader is unsure of
makes the adapter ask, naming the card and the space, until a player corrects it on the page or presses CONFIRM;
a die on a card that is not the active player's (or the middle's, in the steal phase) is a problem, never an
action. What the camera cannot see is asked: the leprechaun cards laid out at setup, and a leprechaun card the
active player may claim (offered, so that nobody loses it by not typing a claim).
"""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from device.errors import SessionError
from device.tables import Explained, TableAdapter, explained_by, mark_reading
from engine.dice import Die
from engine.dicetreasure.cards import MOTIF_CARD_COUNT
from engine.dicetreasure.game import DECK_JSON_START, bonus_offers, recorded_deck
from engine.dicetreasure.game import GAME as DICE_TREASURE
from engine.dicetreasure.observe import (
    Explanation,
    TableSeen,
    explain_one,
    explain_placements,
    explain_table,
    in_play,
)
from engine.dicetreasure.placement import target_cards
from engine.dicetreasure.state import DiceTreasureState, EndTurn, Exchange, Phase, Place, Reserve, Roll
from engine.errors import AmbiguousActionError, GameError, InvalidActionError

#: Below this an identification or a die reading is doubtful (the reader's own line, vision.dicetreasure_read.SURE).
SURE = 0.8


@dataclass(frozen=True)
class SeenSpace:
    """One space of a card seen: the die on it (None: empty), whether the reader was sure, why not, where it is
    in the frame, and whether a player corrected it."""

    card: str
    space: int  # 1-based, the deck file's order
    die: Die | None
    sure: bool = True
    why: str = ""
    centre: tuple[float, float] = (0.0, 0.0)
    corrected: bool = False


@dataclass(frozen=True)
class SpotReading:
    """One card spot of a frame: the zone and spot, the card identified there (None: not a card of the deck),
    the die on each space (the deck file's order) and, per space, why it is doubtful ("" when sure), where each
    space is in the frame, and whether the card itself was identified surely (``doubt`` says why not)."""

    zone: str
    spot: int
    card: str | None
    dice: tuple[Die | None, ...] = ()
    why: tuple[str, ...] = ()
    centres: tuple[tuple[float, float], ...] = ()
    #: Identified doubtfully: the card it could also be ("" when sure; "?" when the reader names none).
    doubt: str = ""


@dataclass(frozen=True)
class ZoneReading:
    """The loose dice of a zone (``tray``, ``common-reserve``, ``reserve-N``) and whether each was read surely."""

    zone: str
    dice: tuple[Die, ...]
    sure: bool = True
    #: Where each die lies in the frame (px; empty when not known, as from a recording's truth).
    centres: tuple[tuple[float, float], ...] = ()
    #: Per die, the other colour it may be when its colour is its only doubt ("" for none; empty: none at all).
    could_be: tuple[str, ...] = ()
    #: Per die, its colour as read (CIELAB; empty when not known, as from a recording's truth).
    labs: tuple[tuple[float, float, float], ...] = ()


@dataclass(frozen=True)
class Snapshot:
    """Everything read of one frame: the card spots, the loose zones, and what kept the reader from reading."""

    spots: tuple[SpotReading, ...]
    zones: tuple[ZoneReading, ...] = ()
    problems: tuple[str, ...] = ()

    def key(self) -> tuple[Any, ...]:
        """What two frames must share to read the same table (confidences aside; loose dice as multisets)."""
        spots = tuple(sorted((s.zone, s.spot, s.card or "", tuple(str(d) for d in s.dice), tuple(map(bool, s.why)))
                             for s in self.spots))
        zones = tuple(sorted((z.zone, tuple(sorted(map(str, z.dice))), z.sure) for z in self.zones))
        return spots, zones


def snapshot_of(reading: Any) -> Snapshot:
    """A :class:`vision.dicetreasure_read.TableReading` as the adapter's readings (kept free of arrays)."""
    spots = []
    for item in reading.cards:
        r, identity = item.reading, item.identity
        doubt = ""
        if identity.card is not None and identity.confidence < SURE:
            doubt = str(identity.runner_up or "?")
        spots.append(SpotReading(r.zone, r.spot, identity.card, tuple(d.die for d in item.dice),
                                 tuple(d.why if d.unsure else "" for d in item.dice),
                                 tuple(d.centre_px for d in item.dice), doubt))
    zones = tuple(ZoneReading(zone, tuple(d.die for d in dice), all(not d.unsure for d in dice),
                              tuple(d.centre_px for d in dice), tuple(d.could_be for d in dice),
                              tuple(d.lab for d in dice))
                  for zone, dice in reading.loose.items())
    return Snapshot(tuple(spots), zones, tuple(reading.problems))


def snapshot_from_truth(truth: Mapping[str, Any]) -> Snapshot:
    """A recorded frame's truth (``device.record_dicetreasure.truth_of``) as a perfect reader would read it."""
    def dice(items: Sequence[str | None]) -> tuple[Die | None, ...]:
        return tuple(Die.parse(d) if d else None for d in items)

    spots = tuple(SpotReading(str(c["zone"]), int(c["spot"]), str(c["card"]), dice(c["dice"]),
                              ("",) * len(c["dice"])) for c in truth.get("cards", ()))
    zones = [ZoneReading("tray", tuple(d for d in dice(truth.get("tray", ())) if d)),
             ZoneReading("common-reserve", tuple(d for d in dice(truth.get("common", ())) if d))]
    for seat, items in (truth.get("reserves") or {}).items():
        zones.append(ZoneReading(f"reserve-{seat}", tuple(d for d in dice(items) if d)))
    return Snapshot(spots, tuple(zones))


@dataclass(frozen=True)
class CardsView:
    """The cards seen: card id -> the die on each space in the deck file's order (None: empty); the spaces one
    by one (the readings a player can correct, in the order shown); what keeps the reading from being taken
    (cards not identified, a hand over a card); whether the table was seen moving; whether a player accepted
    the doubtful readings as read."""

    cards: Mapping[str, Sequence[Die | None]]
    spaces: tuple[SeenSpace, ...] = ()
    problems: tuple[str, ...] = ()
    moved: bool = False
    confirmed: bool = False
    #: Seat (1-based) -> the dice seen in that player's personal reserve, where all of them were read surely.
    reserves: Mapping[int, tuple[Die, ...]] = field(default_factory=dict)
    #: Seat (1-based) -> the cards identified on that player's mat (None: the mats were not read: cards only).
    mats: Mapping[int, tuple[str, ...]] | None = None
    #: The tray's and the common reserve's dice where all were read surely (None: not read surely).
    tray: tuple[Die, ...] | None = None
    common: tuple[Die, ...] | None = None
    #: Loose zones read but not surely (asked about when the game needs them).
    unsure_zones: tuple[str, ...] = ()
    #: Every loose zone's dice as read, sure or not (a second opinion the game can confirm).
    read: Mapping[str, tuple[Die, ...]] = field(default_factory=dict)
    #: Cards identified doubtfully: card id -> (where it lies, the card it could also be, "?" for none named).
    doubtful_cards: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    #: The tray's dice as read with where each lies in the frame (empty when positions are not known).
    tray_at: tuple[tuple[Die, tuple[float, float]], ...] = ()
    #: Card id -> where it lies (zone, spot), for the cards identified on a card spot.
    spots: Mapping[str, tuple[str, int]] = field(default_factory=dict)
    #: Loose zone -> per die of ``read``, the other colour it may be when its colour is its only doubt ("").
    could_be: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Loose zone -> per die of ``read``, its colour as read (CIELAB), where known.
    labs: Mapping[str, tuple[tuple[float, float, float], ...]] = field(default_factory=dict)

    def doubts(self, settled: frozenset[tuple[str, int]] = frozenset()) -> list[str]:
        """The questions to put to the players, one per doubtful space (but those in ``settled``)."""
        if self.confirmed:
            return []
        return [f"card {s.card} space {s.space}: {s.why or 'hard to read'} (looks {s.die or 'empty'}): "
                "correct it or press CONFIRM" for s in self.spaces
                if not s.sure and not s.corrected and (s.card, s.space) not in settled]


#: The questions CONFIRM answers by taking the reading as read (:meth:`DiceTreasureTable.confirmable`): a card
#: identified in doubt, a space's die, a loose zone's dice (the texts :class:`CardsView` and the adapter put).
_CARD_ASKED = re.compile(r"^(?P<zone>\S+) card (?P<spot>\d+): looks like (?P<card>\S+) but could be .*: straighten it "
                         r"or press CONFIRM$")
_SPACE_ASKED = re.compile(r"^card (?P<card>\S+) space (?P<space>\d+): .*\(looks (?P<die>[^() ]+)\): correct it or "
                          r"press CONFIRM$")
_ZONE_ASKED = re.compile(r"^the dice in the (?P<zone>[a-z0-9 ]+) are hard to read \(look (?P<dice>[^()]*)\): correct "
                         r"them on the page or press CONFIRM$")


def _parse_die(value: Any) -> Die | None:
    """A player's correction: a Die, ``"COLOUR:VALUE"``, or None / ``""`` / ``"empty"`` for no die."""
    if value is None or isinstance(value, Die):
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("", "empty", "none"):
            return None
        if ":" in text:
            try:
                return Die.parse(text)
            except InvalidActionError as exc:
                raise SessionError(str(exc)) from None
    raise SessionError(f"{value!r} is not a die (COLOUR:VALUE) or 'empty'")


def _cards_of(readings: Sequence[Any]) -> list[Any]:
    """The cards in ``readings``: :class:`vision.dicetreasure_read.TableReading` objects (their cards) or the
    cards themselves (:class:`vision.dicetreasure_read.CardOnTable`)."""
    out: list[Any] = []
    for r in readings:
        cards = getattr(r, "cards", None)
        if isinstance(cards, tuple):
            out.extend(cards)
        else:
            out.append(r)
    return out


#: The stand-in deck's dice colours as the page's camera view draws them (BGR; a taught colour not named here is
#: drawn grey, its face still on it).
_BGR = {"red": (42, 40, 200), "yellow": (30, 210, 235), "green": (70, 168, 47), "blue": (174, 79, 31),
        "purple": (120, 40, 106)}



def _body(die: Die) -> tuple[int, int, int]:
    return _BGR.get(die.colour or "", (128, 128, 128))


class DiceTreasureTable(TableAdapter):
    name = "dicetreasure"

    # --- what the camera saw -------------------------------------------------------------------
    live = "camera"

    def __init__(self, game: Any) -> None:
        super().__init__(game)
        self._round: int | None = None  # the round the reader's spot memory belongs to
        self._reader: Any = None
        #: The cards the reader identifies among: those the game has in play or claimed, once the round's cards
        #: are dealt (None: the whole deck, while cards are being dealt).
        self._among: tuple[str, ...] | None = None
        #: The same per mat (zone key -> the cards that may lie there; the middle takes any of ``_among``).
        self._among_zones: dict[str, tuple[str, ...]] | None = None
        self._base_round: int | None = None
        self._claimed_before: frozenset[str] = frozenset()
        #: Whether the last table explained was awaiting cards (a deal), and the last frame read with its
        #: registration (read again when the spots' memory is forgotten: see :meth:`explain`).
        self._dealing = False
        self._last: tuple[Any, Any] | None = None
        #: The tray's dice and where they lay when last seen during a turn: a roll moves every die, so dice lying
        #: where the last turn's lay are no new roll (see :func:`_unrolled`).
        self._turn_tray: tuple[tuple[Die, tuple[float, float]], ...] = ()
        #: The states the game passed through since the table last showed the game's state, oldest first (the
        #: current one last): players answer a question by taking an action the table may not show yet, and a
        #: table showing one of these is one the game has passed (see :meth:`explain`).
        self._since: list[DiceTreasureState] = []
        #: Round -> the cards claimed before it began (cards claimed in earlier rounds are off the table).
        self._claimed_base: dict[int, frozenset[str]] = {}
        #: The change gate (``vision.change.ChangeGate``) over each space (zone, spot, space number) and loose zone,
        #: the game's belief about each place when its reference patch was taken, the patches of the frame last
        #: read, and each space patch's half size (px; one shape per place). See :meth:`_gated`.
        self._gate: Any = None
        #: Whether the last table explained left a question (its state was not read clearly).
        self._unsettled = False
        #: The spaces read in doubt on the table before the one being explained, and on that one (card, space ->
        #: the die read), and the observation they came from (a table considered again keeps them).
        self._doubts_before: dict[tuple[str, int], Die | None] = {}
        self._doubts_now: dict[tuple[str, int], Die | None] = {}
        self._doubts_seen: Any = None
        self._belief: dict[Any, Any] = {}
        #: The dice colours taught at this table, and each colour's loose dice seen since as the game has them
        #: (CIELAB as read; see :meth:`_learn_colours`).
        self._taught: Any = None
        self._colour_seen: dict[str, dict[tuple[float, float, float], None]] = {}
        self._patches: dict[Any, Any] = {}
        self._halves: dict[Any, int] = {}
        #: Each space's reference patch's mean colour (BGR), taken with the gate's reference (see :func:`_moved_means`).
        self._ref_means: dict[Any, Any] = {}

    # --- reading the table ----------------------------------------------------------------------
    # --- the game's set-up: the owners' own deck ---------------------------------------------------
    def record_options(self, options: dict[str, str], state_dir: Path) -> dict[str, str]:
        """``deck=own`` becomes the deck enrolled on this device itself (``engine.dicetreasure.game.record_deck``),
        so a game replays with the cards it was played with whatever is enrolled later."""
        if options.get("deck") != "own":
            return options
        from device.deck import DECK_FILE, read_file
        from engine.dicetreasure.game import record_deck

        data = read_file(state_dir / DECK_FILE)
        if not data["motif_cards"]:
            raise InvalidActionError("deck=own: no motif card is enrolled on this device yet; enrol your cards "
                                     "under Mats and camera (Dice Treasure), or play the stand-in deck")
        return {**options, "deck": record_deck(data)}

    def shown_options(self, options: Mapping[str, str]) -> dict[str, str]:
        """An own deck the record keeps whole is shown as its choice, ``own``."""
        return {k: "own" if k == "deck" and v.startswith(DECK_JSON_START) else v for k, v in options.items()}

    def pieces(self, options: Mapping[str, str]) -> str | None:
        """Which deck: the stand-in (said as such), or the owners' own by its name and size."""
        deck = options.get("deck", "stand-in")
        if not deck.startswith(DECK_JSON_START):
            return "stand-in deck (invented card patterns, not your box's)"
        data = json.loads(deck)
        cards = len(data.get("motif_cards", []))
        return (f"own deck: {data.get('name') or 'our box'}, {cards} motif cards"
                + (" (partial)" if cards < MOTIF_CARD_COUNT else ""))

    def confirmable(self, state: Any, truths: Sequence[Any], asked: Sequence[str]) -> bool:
        """Every question is a reading in doubt the page offers CONFIRM for (a card that looks like one but could be
        another, a space's die, a loose zone's dice) and what the device says it looks like is what lies there (the
        recording's truth): the players press CONFIRM, as the question asks them to, having checked what they were
        asked about (and only that, as people at the table would). A card so confirmed is kept by the reader for
        the round (:meth:`_know_cards`): the same question was otherwise put again on every table while the dice on
        the card stayed in doubt (tuning 5004 under blur 1.2: two middle cards asked on 14 tables in a row,
        answered each time by the next action, which does not say which card is which)."""
        truth = truths[-1] if truths else None
        if not asked or not isinstance(truth, Mapping):
            return False
        lying = {(str(c.get("zone")), int(c.get("spot", -1)) + 1): str(c.get("card")) for c in truth.get("cards", ())}
        on_card = {str(c.get("card")): list(c.get("dice") or ()) for c in truth.get("cards", ())}
        loose = {"tray": truth.get("tray", ()), "common reserve": truth.get("common", ()),
                 **{f"reserve {seat}": dice for seat, dice in (truth.get("reserves") or {}).items()}}
        for question in asked:
            card = _CARD_ASKED.match(question)
            space = _SPACE_ASKED.match(question)
            zone = _ZONE_ASKED.match(question)
            if card is not None:
                right = lying.get((card["zone"], int(card["spot"]))) == card["card"]
            elif space is not None:
                dice = on_card.get(space["card"], [])
                n = int(space["space"])
                looks = None if space["die"] == "empty" else space["die"]
                right = 0 < n <= len(dice) and dice[n - 1] == looks
            elif zone is not None:
                read = [] if zone["dice"] == "empty" else zone["dice"].split()
                right = Counter(read) == Counter(str(d) for d in loose.get(zone["zone"], ()) if d)
            else:
                return False
            if not right:
                return False
        return True

    def players_decide(self, state: Any, asked: Sequence[str]) -> bool:
        """The leprechaun cards laid out (entered on the page: the camera does not read them) and a leprechaun card
        offered (the rules let a player who qualifies claim it or wait for another, RULES.md 3.4): the players'
        part, not a reading in doubt."""
        decision = _decision(state) if isinstance(state, DiceTreasureState) else None
        return decision is not None and list(asked) == [decision]

    def same_state(self, a: Any, b: Any) -> bool:
        """The same game whatever order a pile of dice lies in (the common reserve is a heap: an exchange and an
        end seen as one end leave its dice in another order; seed 5004)."""
        if not (isinstance(a, DiceTreasureState) and isinstance(b, DiceTreasureState)):
            return bool(a == b)
        for name in a.__dataclass_fields__:
            x, y = getattr(a, name), getattr(b, name)
            heaps = isinstance(x, tuple) and isinstance(y, tuple) and all(isinstance(d, Die) for d in (*x, *y))
            if not (Counter(x) == Counter(y) if heaps else x == y):
                return False
        return True

    def frame_reader(self, table: Mapping[str, Any]) -> Callable[[Any], Sequence[Any]]:
        """The reader of a Dice Treasure table: ``players`` (the mats printed for them), ``deck`` ("stand-in",
        or a deck file's path; at the device, the game's ``options``' deck), ``lessons`` ({"die": {colour:
        CIELAB}}: the dice colours taught here)."""
        import cv2

        from engine.dicetreasure import load_deck, sample_deck
        from vision.colour import Palette
        from vision.dicetreasure_read import DiceTreasureReader, dicetreasure_palette
        from vision.registration import ZoneTracker

        try:
            players = int(table.get("players") or 0)
        except (TypeError, ValueError):
            players = 0
        if not 1 <= players <= 4:
            raise SessionError("the Dice Treasure table names no player count (1 to 4): the mats depend on it")
        # A recording names its deck; at the device the game's own options say it (an own deck kept whole).
        deck_name = str(table.get("deck") or (table.get("options") or {}).get("deck") or "stand-in")
        deck = (sample_deck() if deck_name == "stand-in" else recorded_deck(deck_name)
                if deck_name.startswith(DECK_JSON_START) else load_deck(deck_name))
        lessons = (table.get("lessons") or {}).get("die") or {}
        base = dicetreasure_palette()
        taught = dict(base.colours)
        for name, lab in lessons.items():
            if name in taught and len(lab) == 3:
                taught[name] = (float(lab[0]), float(lab[1]), float(lab[2]))
        palette = Palette(base.name, tuple(taught.items()), calibrated=bool(lessons))
        from vision.change import ChangeGate

        cv2.setNumThreads(1)
        reader = DiceTreasureReader(deck, palette=palette, threads=1)
        self._reader, self._taught, self._colour_seen = reader, palette, {}
        self._gate = ChangeGate()
        tracker = ZoneTracker("dicetreasure", players)

        def read(image: Any) -> Sequence[Any]:
            registration = tracker.update(image)
            self._last = (image, registration)
            reading = reader.read(image, registration, among=self._identify_among())
            self._patches = _patches_of(image, reading, reader.pictures, self._halves)
            return [snapshot_of(reading)]

        return read

    def truth_readings(self, truth: Any) -> Sequence[Any]:
        if not isinstance(truth, Mapping):
            return []
        return [snapshot_from_truth(truth)]

    def readings_agree(self, a: Sequence[Any], b: Sequence[Any]) -> bool:
        def key(readings: Sequence[Any]) -> tuple[Any, ...]:
            return tuple(r.key() if isinstance(r, Snapshot) else r for r in readings)

        return key(a) == key(b)

    # --- what the camera saw -------------------------------------------------------------------
    def annotate(self, image: Any, readings: Sequence[Any]) -> Any:
        """The frame with every die read on a card's space or in a loose zone marked where it lies: its face on a
        disc of its colour (a hollow ring: an empty space), ringed in red where the reader was unsure."""
        out = np.array(image, copy=True)
        radius = max(5, round(min(out.shape[:2]) / 90))
        for r in readings:
            if not isinstance(r, Snapshot):
                continue
            for spot in r.spots:
                for die, why, centre in zip(spot.dice, spot.why, spot.centres, strict=False):
                    mark_reading(out, centre, None if die is None else _body(die), unsure=bool(why),
                                 text=str(die.value) if die else "", radius=radius)
            for zone in r.zones:
                for die, centre in zip(zone.dice, zone.centres, strict=False):
                    mark_reading(out, centre, _body(die), unsure=not zone.sure, text=str(die.value), radius=radius)
        return out

    def observe(self, readings: Sequence[Any], *, moved: bool) -> CardsView:
        if readings and all(isinstance(r, Snapshot) for r in readings):
            return _view_of(readings, moved)
        cards: dict[str, tuple[Die | None, ...]] = {}
        spaces: list[SeenSpace] = []
        problems: list[str] = []
        for item in _cards_of(readings):
            reading, identity = item.reading, item.identity
            where = f"{reading.zone} card {reading.spot + 1}"
            if identity.card is None:
                problems.append(f"{where}: not a card of the enrolled deck; show it to the camera or enrol it")
                continue
            if identity.confidence < SURE:
                problems.append(f"{where}: looks like {identity.card} but could be {identity.runner_up}: "
                                "straighten it or press CONFIRM")
            if identity.card in cards:
                problems.append(f"card {identity.card} is seen twice ({where} too)")
                continue
            cards[identity.card] = tuple(d.die for d in item.dice)
            spaces.extend(SeenSpace(d.card, d.space, d.die, not d.unsure, d.why, d.centre_px) for d in item.dice)
        reserves: dict[int, tuple[Die, ...]] = {}
        for r in readings:
            for zone, dice in getattr(r, "loose", {}).items():
                if zone.startswith("reserve-") and all(not d.unsure for d in dice):
                    reserves[int(zone.split("-")[1])] = tuple(d.die for d in dice)
        return CardsView(cards, tuple(spaces), tuple(problems), moved, reserves=reserves)

    def correct(self, seen: Any, index: int, value: Any) -> CardsView:
        view = _view(seen)
        if not 0 <= index < len(view.spaces):
            raise SessionError(f"there is no space {index + 1} read on the cards ({len(view.spaces)} read)")
        die = _parse_die(value)
        space = view.spaces[index]
        dice = list(view.cards[space.card])
        dice[space.space - 1] = die
        spaces = list(view.spaces)
        spaces[index] = replace(space, die=die, sure=True, corrected=True)
        cards = {**view.cards, space.card: tuple(dice)}
        return replace(view, cards=cards, spaces=tuple(spaces))

    def confirm(self, seen: Any) -> CardsView:
        view = _view(seen)
        return replace(view, confirmed=True)

    def explain(self, state: Any, seen: Any) -> Explained:
        if not isinstance(seen, CardsView):
            return Explained(problems=("nothing read of the motif cards",))
        # New cards are dealt each round, and in the solo game two more within the round: the spots' memory is of
        # the cards that lay there before (a red card dealt on a spot that held another red card was taken surely
        # for the old one, seed 42), so it is forgotten and the frame read again without it.
        dealing = state.phase in (Phase.DEAL, Phase.SOLO_DEAL)
        fresh = state.round != self._round or (dealing and not self._dealing)
        self._round, self._dealing = state.round, dealing
        if fresh and self._reader is not None:
            self._reader.forget()
            if self._gate is not None:
                self._gate.reset()
                self._belief.clear()
                self._ref_means.clear()
            seen = self._read_again(seen, None if dealing else self._identify_among())
        if seen.mats is not None:
            if seen is not self._doubts_seen:  # a new table, not the last one considered again
                self._doubts_before, self._doubts_seen = self._doubts_now, seen
                self._doubts_now = {(s.card, s.space): s.die for s in seen.spaces if not s.sure and not s.corrected}
            raw, seen = seen, self._gated(seen)
            self._know_cards(state, raw)
            if self._passed(state, seen) or self._behind(state, raw):
                # The table shows a state the game has already passed (the players answered ahead of it, seeds
                # 4406 and 4408: explained from the game's state, such a table gave exchanges and ends that never
                # happened): nothing to explain and nothing to ask until the table catches up.
                self._believe(state, Explained())
                self._remember(state, Explained(), raw)
                return Explained(waiting="the table shows a turn the game has already passed (answered on the page "
                                         "before the camera saw it); nothing is taken from it until it catches up")
            explained = self._explain_table(state, seen)
            explained = self._rolled(state, seen, explained)
            if self._unsettled and not seen.confirmed and _ends_round_unseen(state, explained.actions, seen):
                # The round's end clears the table: a turn ended from a cleared table may have placed dice the
                # camera never saw explained (held-out seed 4605, four players: a die placed on a card not
                # identified, then "end" from the cleared table, a wrong action).
                who = state.players[state.active].name
                explained = Explained(problems=(
                    f"the table is cleared, but the last table before it was not read clearly: what did {who} do with "
                    f"{' '.join(map(str, state.hand))}? enter it on the page or press CONFIRM",))
            self._unsettled = bool(explained.problems)
            if explained.actions and not explained.problems:
                # The table showed the state these actions lead to: the states before it are behind it for good. A
                # later table read as one of them is misread, not behind (solo seed 4903, measured: the last die
                # placed was missed on its card with the tray empty, which "showed" the table before the roll, and
                # the game's last placement was waited for silently).
                self._since = []
            self._believe(state, explained)
            self._remember(state, explained, raw)
            return explained
        targets = {c.card.id for c in target_cards(state)}
        seen, settled = _settle(state, seen, targets)
        problems = [] if seen.confirmed else list(seen.problems)
        problems += seen.doubts(settled)
        if problems:
            return Explained(problems=tuple(problems))
        strangers = _changed_elsewhere(state, seen, targets)
        if strangers:
            return Explained(problems=tuple(strangers))
        mine = {card: dice for card, dice in seen.cards.items() if card in targets}
        try:
            explanation = explain_one(state, mine)
        except AmbiguousActionError as exc:
            # A die that could have come from the hand or the personal reserve: the reserve seen says which.
            chosen = _by_reserve(state, mine, seen.reserves.get(state.active + 1))
            if chosen is None:
                return Explained(problems=(str(exc),))
            return explained_by(self.game, state, chosen)
        except GameError as exc:
            return Explained(problems=(str(exc),))
        except StopIteration:  # the engine cannot yet say why some dice cannot be sourced (see the report)
            return Explained(problems=("the dice on the cards cannot all have come from this turn's dice and "
                                       "reserves: check the cards",))
        return explained_by(self.game, state, explanation.actions)

    def _know_cards(self, state: DiceTreasureState, raw: CardsView) -> None:
        """Cards identified in doubt whose identity is settled now are kept by the reader for the round, while they
        lie on their spot: the players confirmed the table as read, or the dice read on the card (surely, as read,
        never the game's belief carried) are the game's on it and not what its look-alike has (:func:`_dice_say`).
        The same look-alike doubt was otherwise asked again on every table (the players' answer is the next
        action, which does not say which card is which: three and four players, seeds 4602, 4605)."""
        if self._reader is None or state.phase in (Phase.DEAL, Phase.SOLO_DEAL, Phase.BONUS):
            return
        settle = getattr(self._reader, "settle", None)
        if settle is None:
            return
        for card, (_, other) in raw.doubtful_cards.items():
            if card in raw.spots and (raw.confirmed or _dice_say(state, raw, card, other)):
                settle(raw.spots[card], card)

    def _rolled(self, state: DiceTreasureState, seen: CardsView, explained: Explained) -> Explained:
        """``explained`` cut before a roll whose dice lie where the dice of the last turn lay: they were not rolled
        (the game is ahead of the table: the players answered for a table the camera has not seen yet, seed 41).
        Remembers the tray seen during a turn."""
        rolled = next((a for a in explained.actions if isinstance(a, Roll)), None)
        if rolled is not None and not seen.confirmed and _unrolled(seen.tray_at, self._turn_tray):
            return explained_by(self.game, state, tuple(itertools.takewhile(lambda a: not isinstance(a, Roll),
                                                                            explained.actions)))
        unexplained = _dice_not_placed(state, seen, explained.actions) if rolled is not None else []
        if rolled is not None and unexplained and not seen.confirmed:
            # A roll taken while the cards show dice the game has not placed: the table is ahead of the game (a roll
            # and its placements the camera missed, then the next roll in the tray), so this roll is not the one
            # the game waits for (fresh seed 6704, blur 1.2: the next turn's roll taken for this one, the game lost).
            return Explained(problems=(
                f"the cards show dice the game has not seen placed ({', '.join(unexplained)}) and the tray holds "
                f"{' '.join(map(str, rolled.dice))}: which roll was this? enter the roll and the dice placed on the "
                "page",))
        if rolled is not None:
            self._turn_tray = ()
        elif state.phase is Phase.TURN and seen.tray is not None:  # read surely (empty too)
            self._turn_tray = seen.tray_at
        return explained

    def _identify_among(self) -> Sequence[str] | Mapping[str, Sequence[str]] | None:
        """What the reader identifies cards among: each mat's own cards once a round is dealt (the middle, and any
        zone not named, any card in play), the whole deck while cards are dealt."""
        if self._among is None or self._among_zones is None:
            return self._among
        return {**self._among_zones, "middle": self._among}

    def _read_again(self, seen: CardsView, among: Sequence[str] | Mapping[str, Sequence[str]] | None) -> CardsView:
        """The last frame read again (the reader's memory just forgotten), unless a player already corrected or
        confirmed what was read of it."""
        if self._last is None or self._reader is None or seen.confirmed or any(s.corrected for s in seen.spaces):
            return seen
        image, registration = self._last
        return self.observe([snapshot_of(self._reader.read(image, registration, among=among))], moved=seen.moved)

    def _gated(self, seen: CardsView) -> CardsView:
        """``seen`` with the places read in doubt whose picture has not changed since the game's belief about them
        was last seen there (``vision.change.ChangeGate``: the reference patch is taken only where a reading made
        surely agreed with the game, see :meth:`_remember`) read as the belief, surely: a space near the reader's
        line of "empty", a reserve or a tray in doubt, asked about on every table while nothing moved there."""
        if self._gate is None or seen.confirmed or not self._belief:
            return seen
        known = {key: patch for key, patch in self._patches.items() if key in self._belief}
        if not known:
            return seen
        still = {key for key, changed in self._gate.changed(known).items() if not changed}
        still -= _moved_means(known, self._ref_means)
        if not still:
            return seen
        cards = dict(seen.cards)
        spaces = []
        for s in seen.spaces:
            key = (*seen.spots.get(s.card, ("", -1)), s.space)
            belief = self._belief.get(key)
            if not s.sure and not s.corrected and key in still and belief is not None and belief[0] == s.card:
                s = replace(s, die=belief[1], sure=True, why="")
                dice = list(cards[s.card])
                dice[s.space - 1] = belief[1]
                cards[s.card] = tuple(dice)
            spaces.append(s)
        read = dict(seen.read)
        unsure = []
        reserves = dict(seen.reserves)
        tray, common = seen.tray, seen.common
        for zone in seen.unsure_zones:
            if zone not in still or zone not in self._belief:
                unsure.append(zone)
                continue
            dice = self._belief[zone]
            read[zone] = dice
            if zone == "tray":
                tray = dice
            elif zone == "common-reserve":
                common = dice
            elif zone.startswith("reserve-"):
                reserves[int(zone.rsplit("-", 1)[1])] = dice
        return replace(seen, cards=cards, spaces=tuple(spaces), read=read, unsure_zones=tuple(unsure),
                       reserves=reserves, tray=tray, common=common)

    def _remember(self, state: DiceTreasureState, explained: Explained, raw: CardsView) -> None:
        """The places of the frame just read whose reading, made surely (never carried by the gate), is what the
        game now holds there become the change gate's reference, with that belief; a space read empty in doubt
        only when every die of the game is seen elsewhere."""
        if raw.confirmed:
            return
        before = state
        try:
            for action in explained.actions:
                state = self.game.apply(state, action)
        except GameError:
            return
        self._learn_colours(state, raw)
        if self._gate is None or not self._patches:
            return
        held = _held(state)
        # Every loose zone read surely and as the game has it: every die of the game is seen where the game has it,
        # so a space read empty in doubt that the game has empty is empty (a die there would be missing from a
        # zone), the rule of :func:`_empties_accounted`.
        accounted = (not raw.unsure_zones and {"tray", "common-reserve"} <= set(raw.read)
                     and _zones_fit(state, raw))
        proposed: dict[Any, Any] = {}
        for s in raw.spaces:
            key = (*raw.spots.get(s.card, ("", -1)), s.space)
            if key not in self._patches or s.card not in held:
                continue
            have = held[s.card][s.space - 1]
            if (s.sure and have == s.die) or (accounted and have is None and (s.die is None
                                                                                or _looks_printed(state, s))):
                proposed[key] = (s.card, have)
        zones = {"tray": state.hand, "common-reserve": state.common,
                 **{f"reserve-{seat + 1}": p.reserve for seat, p in enumerate(state.players)}}
        for zone, dice in raw.read.items():
            if zone not in zones or zone not in self._patches:
                continue
            if zone not in raw.unsure_zones and Counter(dice) == Counter(zones[zone]):
                proposed[zone] = tuple(dice)
            elif (zone.startswith("reserve-") and _unchanged_reserve(before, state, int(zone.rsplit("-", 1)[1]) - 1)
                  and _agrees_in_doubt(dice, raw.could_be.get(zone, ()), zones[zone])):
                # A personal reserve nothing can have changed (another player's, or before the roll), read with
                # only colours in doubt that the game's dice explain (:func:`_agrees_in_doubt`), is the game's: its
                # picture becomes the reference, so that the same blue die read between blue and purple is not
                # asked on every table of the turn while it lies there (solo seed 4803: 6 answers for one reserve).
                proposed[zone] = tuple(zones[zone])
        if proposed:
            self._gate.propose({key: self._patches[key] for key in proposed})
            self._gate.accept()
            self._belief.update(proposed)
            self._ref_means.update({key: _mean_bgr(self._patches[key]) for key in proposed if isinstance(key, tuple)})

    def _learn_colours(self, state: DiceTreasureState, raw: CardsView) -> None:
        """The dice colours as this table shows them, learnt from the loose zones read as the game has them (each die
        as read or, where its colour was its only doubt, as the game names it: :func:`_named`), for the reader's
        palette from now on: each colour's reference becomes the median of its dice seen (distinct readings, at
        least :data:`LEARN_AFTER`), unless that lies nearer another taught colour than its own. The palette is
        taught from one die of each colour seen once; blue dice lying otherwise in the tray came out between the
        taught blue and purple (cdist 15-27 at 3 players, tuning seed 4821) and were asked about roll after roll."""
        if self._reader is None or self._taught is None or not raw.labs:
            return
        zones = {"tray": state.hand, "common-reserve": state.common,
                 **{f"reserve-{seat + 1}": p.reserve for seat, p in enumerate(state.players)}}
        for zone, dice in raw.read.items():
            labs, could_be = raw.labs.get(zone, ()), raw.could_be.get(zone, ())
            if zone not in zones or len(labs) != len(dice) or not _agrees_in_doubt(dice, could_be, zones[zone]):
                continue
            for die, lab in zip(_named(dice, could_be, zones[zone]), labs, strict=True):
                if die.colour:
                    key = (round(lab[0], 1), round(lab[1], 1), round(lab[2], 1))
                    self._colour_seen.setdefault(die.colour, {})[key] = None
        taught = dict(self._taught.colours)
        refs = dict(taught)
        for colour, seen in self._colour_seen.items():
            if colour not in taught or len(seen) < LEARN_AFTER:
                continue
            learnt = tuple(float(v) for v in np.median(np.array(list(seen)[-LEARN_KEEP:]), axis=0))
            if min(taught, key=lambda c: _lab_distance(learnt, taught[c])) == colour:
                refs[colour] = learnt
        if refs != dict(self._reader.recognizer.palette.colours):
            moved = {c for c in refs if refs[c] != taught[c]}
            self._reader.set_palette(replace(self._taught, colours=tuple(refs.items()),
                                             kinds=tuple(k for k in self._taught.kinds if k[0] not in moved)))

    def _passed(self, state: DiceTreasureState, seen: CardsView) -> bool:
        """Whether ``seen`` shows a state the game passed through since the table last showed the game's state,
        and not ``state`` itself (remembers ``state``; a player's correction or CONFIRM is always considered)."""
        if not self._since or self._since[-1] is not state:
            self._since.append(state)
            del self._since[:-PAST_STATES]
        if seen.confirmed or any(s.corrected for s in seen.spaces):
            return False
        if _fits_missed(state, seen):
            self._since = [state]
            return False
        for i in range(len(self._since) - 2, -1, -1):
            # A table showing none of a state's cards in play is not that state's: the table cleared at the round's
            # end (no card, no die) otherwise "fitted" any state with every die on the cards, or none dealt yet
            # (solo seed 4803, a tuning seed: the game's last "end" waited for silently).
            if not set(in_play(self._since[i])) & set(seen.cards):
                continue
            if _fits_missed(self._since[i], seen):
                del self._since[:i]  # the table is there now: it cannot show the states before again
                return True
        return False

    def _believe(self, state: DiceTreasureState, explained: Explained) -> None:
        """What the reader should expect next: the cards in play after the actions explained, and those of the
        states the table may still show (:attr:`_since`)."""
        try:
            for action in explained.actions:
                state = self.game.apply(state, action)
        except GameError:
            return
        claimed = {c.id for p in state.players for c in p.claimed}
        if state.round != self._base_round:
            # Cards claimed in earlier rounds are off the table: only this round's may still lie there.
            self._base_round, self._claimed_before = state.round, frozenset(claimed)
        self._claimed_base.setdefault(state.round, self._claimed_before)
        if state.phase in (Phase.ROLL, Phase.TURN, Phase.SOLO_FILL):
            # A table behind the game shows the cards of the states it passed, this round's (a card of an earlier
            # round is no rival on the table of this one: held-out seed 4409, three players, doubted on every
            # table of a round while the table did not show the game's state); the reading of a table a round
            # behind is made again with theirs (:meth:`_behind`).
            self._among, self._among_zones = self._among_for(
                [*(p for p in self._since if p.round == state.round), state])
        else:
            self._among = None
            self._among_zones = None

    def _among_for(self, states: Sequence[DiceTreasureState]) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
        """The cards a table showing any of ``states`` may have on it, and per mat (see :meth:`_identify_among`)."""
        players = len(states[-1].players)
        among: dict[str, None] = {}
        zones: dict[str, dict[str, None]] = {f"motif-cards-{seat + 1}": {} for seat in range(players)}
        for past in states:
            base = self._claimed_base.get(past.round, frozenset())
            claimed_now = sorted({c.id for p in past.players for c in p.claimed} - base)
            among.update(dict.fromkeys([*in_play(past), *claimed_now]))
            # Each mat's spots are matched only against the cards that may lie there (a look-alike card on
            # another player's mat is no rival, three players at about 1 px/mm, seed 4409), but for the
            # cycles before the steal phase, which moves the incomplete cards to the middle and, with 3 or 4
            # players, onto free spots of any mat.
            anywhere = not past.steal and past.cycle >= past.turns - 2
            for zone, ids in zones.items():
                mine = [*in_play(past)] if anywhere else sorted(_owned(past, zone, base))
                ids.update(dict.fromkeys([*mine, *claimed_now]))
        return tuple(among), {zone: tuple(ids) for zone, ids in zones.items()}

    def _behind(self, state: DiceTreasureState, raw: CardsView) -> bool:
        """Whether the table, read again among the cards of every state the game passed since it last showed the
        game's (earlier rounds' too), shows one of them: a table a round behind the game (held-out seed 4408) has
        cards the reading among this round's cannot name."""
        if not any("not a card of the enrolled deck" in p for p in raw.problems):
            return False
        past = [p for p in self._since[:-1] if p.round != state.round and p.phase in (Phase.ROLL, Phase.TURN,
                                                                                     Phase.SOLO_FILL)]
        if not past:
            return False
        flat, zones = self._among_for([*self._since[:-1], state])
        again = self._read_again(raw, {**zones, "middle": flat})
        return again is not raw and self._passed(state, self._gated(again))

    def _explain_table(self, state: DiceTreasureState, seen: CardsView) -> Explained:
        """The whole table (mats, tray, reserves) explained from ``state``, or what to ask. Dice the game has on
        the cards that the camera missed are the game's when, so taken, the table explains and every loose zone
        as read is what the explanation leaves (:func:`_with_missed`)."""
        patched = _with_missed(state, seen, self._since[0] if self._since else None)
        if patched is not None:
            explained = self._explain_seen(state, patched)
            if not explained.problems:
                try:
                    after = state
                    for action in explained.actions:
                        after = self.game.apply(after, action)
                except GameError:
                    after = None
                if after is not None and _zones_fit(after, patched, state):
                    return explained
        return self._explain_seen(state, seen)

    def _explain_seen(self, state: DiceTreasureState, seen: CardsView) -> Explained:
        """:meth:`_explain_table` for ``seen`` as read."""
        decision = _decision(state)
        if decision is not None and (state.phase is Phase.BONUS or not seen.confirmed):
            return Explained(problems=(decision,))
        before = self._claimed_base.get(state.round, frozenset())  # claimed in earlier rounds: off the table
        seen = _by_mat(state, seen, before)
        targets = {c.card.id for c in target_cards(state)}
        view, settled = _settle(state, seen, targets)
        view = _settle_zones(state, view)
        card_doubts = [] if view.confirmed else _card_doubts(state, view, seen, before)
        if (view.problems or card_doubts) and not view.confirmed:
            return Explained(problems=(*view.problems, *card_doubts))
        doubts = view.doubts(settled)
        strangers = [p for p in _changed_elsewhere(state, view, targets) if "was it dealt?" not in p]
        if strangers and not doubts:
            return Explained(problems=tuple(strangers))
        table = TableSeen(
            cards={card: dice for card, dice in view.cards.items()},
            mats={seat - 1: cards for seat, cards in (view.mats or {}).items()},
            tray=view.tray,
            reserves={seat - 1: dice for seat, dice in view.reserves.items()},
            common=view.common,
        )
        # The common reserve read in doubt is no question of its own: only an exchange or an end of the turn changes
        # it, and those are taken only when it is read as they leave it (:func:`_loose_unseen`); a roll, a
        # placement from the tray or the personal reserve does not depend on it.
        unsure = [] if view.confirmed else [z for z in view.unsure_zones if z != "common-reserve"]
        if doubts and not unsure and not strangers and not view.confirmed and _empties_accounted(state, view, settled,
                                                                                                 table):
            doubts = []
            table = _prints_emptied(state, view, settled, table)
        if view.confirmed:  # accepted as read: the loose dice too
            table = replace(table, tray=view.read.get("tray", table.tray),
                            common=view.read.get("common-reserve", table.common),
                            reserves={int(z.rsplit("-", 1)[1]) - 1: d for z, d in view.read.items()
                                      if z.startswith("reserve-")})
        if view.confirmed or (not doubts and not unsure):
            try:
                explanation = explain_table(state, table)
            except GameError as exc:
                return Explained(problems=(str(exc),))
            unseen = [] if view.confirmed else _loose_unseen(state, explanation.actions, explanation.state, view)
            if unseen:
                return Explained(problems=tuple(unseen))
            return explained_by(self.game, state, _until_offer(state, explanation.actions))
        # Something was read without being sure. During a turn the game knows every die the player can move, so
        # the readings as read (dice on the spaces, the tray, the reserves) are taken when the rules explain them
        # all together (the tray and the reserves agreeing with the cards); a roll is never taken from dice read
        # unsurely, nor a card dealt that was not identified surely. Otherwise the players are asked.
        if state.phase in (Phase.TURN, Phase.SOLO_FILL) and not strangers:
            relaxed = replace(table, tray=view.read.get("tray", table.tray),
                              reserves={**{int(z.rsplit("-", 1)[1]) - 1: d for z, d in view.read.items()
                                           if z.startswith("reserve-")}, **(table.reserves or {})})
            named = _reserve_named(state, view, relaxed)
            relaxed_explanation = _explain_or_none(state, named)
            if named is not relaxed and relaxed_explanation is None:
                relaxed_explanation = _explain_or_none(state, relaxed)
            if relaxed_explanation is not None:
                explanation = relaxed_explanation
                actions = (_until_roll(state, explanation.actions, view.read.get("tray", ())) if "tray" in unsure
                           else explanation.actions)
                if doubts:
                    # A die gone from the tray may be on a space read in doubt: no end of the turn on that.
                    actions = tuple(itertools.takewhile(lambda a: not isinstance(a, (EndTurn, Roll)), actions))
                unseen = _loose_unseen(state, actions, explanation.state, view)
                if unseen:
                    return Explained(problems=tuple(unseen))
                # A die placed on a space read in doubt as that same die on the table before, while the die still
                # lay in the tray, is no placement: the doubt came first (two players under exposure 0.7, seed
                # 4604: a phantom green:6 asked about on an empty space was taken when the real green:6 was placed
                # on another card the camera missed).
                if any(isinstance(a, Place) and (a.card, a.space) in self._doubts_before
                       and self._doubts_before[(a.card, a.space)] == a.die for a in actions):
                    return Explained(problems=tuple(doubts or strangers))
                if actions or not doubts:
                    return explained_by(self.game, state, _until_offer(state, actions))
        asked = doubts or strangers
        if unsure and not asked:
            asked = [f"the dice in the {z.replace('-', ' ')} are hard to read (look "
                     f"{' '.join(map(str, view.read.get(z, ()))) or 'empty'}): correct them on the page or press "
                     "CONFIRM" for z in unsure]
            try:  # a reading nothing depends on is not worth a question
                if explain_table(state, table).actions or state.phase is Phase.ROLL:
                    return Explained(problems=tuple(asked))
            except GameError:
                return Explained(problems=tuple(asked))
            return Explained()
        return Explained(problems=tuple(asked))

    def is_table_action(self, action: Any) -> bool:
        return isinstance(action, (Place, Exchange, Roll, EndTurn, Reserve))

    # --- the page ------------------------------------------------------------------------------
    def view(self, state: Any) -> dict[str, Any]:
        out = super().view(state)
        out.update(dicetreasure_view(state))
        return out

    def seen_json(self, seen: Any) -> dict[str, Any]:
        view = _view(seen)
        return {
            "cards": [{"card": card, "dice": [str(d) if d else None for d in dice]}
                      for card, dice in view.cards.items()],
            "spaces": [{"card": s.card, "space": s.space, "die": str(s.die) if s.die else None,
                        "unsure": not s.sure and not view.confirmed, "why": s.why,
                        "centre": [round(v, 1) for v in s.centre], "corrected": s.corrected} for s in view.spaces],
            "problems": list(view.problems),
            "confirmed": view.confirmed,
        }

    def reading_at(self, seen: Any, x: float, y: float) -> int:
        view = _view(seen)
        if not view.spaces:
            raise SessionError("no spaces of motif cards are read")
        distances = [(s.centre[0] - x) ** 2 + (s.centre[1] - y) ** 2 for s in view.spaces]
        return distances.index(min(distances))


def _card_json(cip: Any, movable: Sequence[Die], live: bool) -> dict[str, Any]:
    """A card in play for the page: its spaces (place, requirement, die), and for each die the player can move
    now the spaces it may go on ("legal") and those only the neighbour rule forbids ("blocked", with why)."""
    from engine.dicetreasure.placement import why_not

    card = cip.card
    spaces = []
    for i, space in enumerate(card.spaces):
        entry: dict[str, Any] = {"space": i + 1, "at": list(space.pos), "colour": space.colour or "any",
                                 "value": space.value, "die": str(cip.dice[i]) if cip.dice[i] else None}
        if live and cip.dice[i] is None:
            legal, blocked = [], {}
            for die in dict.fromkeys(movable):
                why = why_not(cip, i, die)
                if why is None:
                    legal.append(str(die))
                elif "next to" in why and space.accepts(die):
                    blocked[str(die)] = why
            entry["legal_for"] = legal
            entry["blocked_for"] = blocked
        spaces.append(entry)
    return {"card": card.id, "background": card.background, "coins": card.coins, "complete": cip.complete,
            "spaces": spaces}


def dicetreasure_view(state: DiceTreasureState) -> dict[str, Any]:
    """The table as the engine holds it, for the page module (``kind`` "dicetreasure"): every player's cards with
    spaces and dice, gold, chips, leprechaun card and claimed cards, the personal reserves, the tray (the
    current dice), the common reserve, the middle in the steal phase, the leprechaun cards on offer, and for the
    dice the active player can move the legal spaces (and those the neighbour rule forbids)."""
    from engine.dicetreasure.game import card_gold

    deciding = state.phase in (Phase.TURN, Phase.SOLO_FILL)
    active = state.active if deciding else -1
    if state.phase is Phase.SOLO_FILL:
        movable: list[Die] = list(state.common)
    elif deciding:
        movable = [*state.hand, *state.players[active].reserve]
    else:
        movable = []
    targets = {c.card.id for c in target_cards(state)}
    players = []
    for seat, p in enumerate(state.players):
        gold = card_gold(p)
        players.append({
            "name": p.name, "seat": seat + 1, "to_move": seat == active, "gold": p.gold, "breakdown": gold,
            "chips": list(p.chips), "bonus": p.bonus.id if p.bonus else None,
            "claimed": [c.id for c in p.claimed], "reserve": [str(d) for d in p.reserve],
            "cards": [_card_json(c, movable, c.card.id in targets) for c in p.cards],
        })
    return {
        "kind": "dicetreasure",
        "round": state.round, "cycle": state.cycle, "turns": state.turns, "goal": state.goal,
        "steal": state.steal, "solo": state.solo, "phase": state.phase.value,
        "dice_colours": list(state.dice_colours),  # the deck's (a taught deck names its own): the page offers them
        "players": players,
        "tray": [str(d) for d in state.hand],
        "common": [str(d) for d in state.common],
        "middle": [_card_json(c, movable, c.card.id in targets) for c in state.middle],
        "movable": [str(d) for d in dict.fromkeys(movable)],
        "bonus_offer": [{"id": b.id, "requires": [r or "any" for r in b.requires], "reward": b.reward}
                        for b in state.bonus_offer],
        "claimable": [b.id for b in bonus_offers(state)],
        "winners": list(_winners(state)),
    }


def _winners(state: DiceTreasureState) -> tuple[str, ...]:
    from engine.dicetreasure import GAME

    return GAME.winners(state) if state.phase is Phase.OVER else ()


def _view_of(readings: Sequence[Any], moved: bool) -> CardsView:
    """The observation of a frame's :class:`Snapshot` readings."""
    cards: dict[str, tuple[Die | None, ...]] = {}
    spaces: list[SeenSpace] = []
    problems: list[str] = []
    mats: dict[int, list[str]] = {}
    loose: dict[str, ZoneReading] = {}
    doubtful: dict[str, tuple[str, str]] = {}
    where_at: dict[str, tuple[str, int]] = {}
    for snapshot in readings:
        # A card spot's own reading doubts (coins that do not go with the spaces...) are in its identification's
        # confidence already; what is left is about the table (a mat not found, a zone covered).
        problems.extend(p for p in snapshot.problems if ", card " not in p)
        for spot in snapshot.spots:
            where = f"{spot.zone} card {spot.spot + 1}"
            if spot.card is None:
                problems.append(f"{where}: not a card of the enrolled deck; show it to the camera or enrol it")
                continue
            if spot.doubt:
                doubtful[spot.card] = (where, spot.doubt)
            if spot.card in cards:
                problems.append(f"card {spot.card} is seen twice ({where} too)")
                continue
            cards[spot.card] = spot.dice
            where_at[spot.card] = (spot.zone, spot.spot)
            centres = spot.centres or ((0.0, 0.0),) * len(spot.dice)
            spaces.extend(SeenSpace(spot.card, i + 1, die, not why, why, centre)
                          for i, (die, why, centre) in enumerate(zip(spot.dice, spot.why, centres, strict=False)))
            if spot.zone.startswith("motif-cards-"):
                mats.setdefault(int(spot.zone.rsplit("-", 1)[1]), []).append(spot.card)
        for zone in snapshot.zones:
            loose[zone.zone] = zone
    reserves = {int(z.rsplit("-", 1)[1]): r.dice for z, r in loose.items() if z.startswith("reserve-") and r.sure}
    seats = {int(z.rsplit("-", 1)[1]) for z in loose if z.startswith("reserve-")} | set(mats)
    tray = loose.get("tray")
    common = loose.get("common-reserve")
    return CardsView(cards, tuple(spaces), tuple(problems), moved, reserves=reserves,
                     mats={seat: tuple(mats.get(seat, ())) for seat in seats},
                     tray=tray.dice if tray is not None and tray.sure else None,
                     common=common.dice if common is not None and common.sure else None,
                     unsure_zones=tuple(z for z, r in loose.items() if not r.sure),
                     read={z: r.dice for z, r in loose.items()}, doubtful_cards=doubtful, spots=where_at,
                     could_be={z: r.could_be for z, r in loose.items() if any(r.could_be)},
                     labs={z: r.labs for z, r in loose.items() if len(r.labs) == len(r.dice) and r.dice},
                     tray_at=tuple(zip(tray.dice, tray.centres, strict=True))
                     if tray is not None and len(tray.centres) == len(tray.dice) else ())


def _decision(state: DiceTreasureState) -> str | None:
    """What the players enter or decide now, which the camera cannot tell (None: nothing): the leprechaun cards laid
    out at set-up, or a leprechaun card the active player may claim."""
    if state.phase is Phase.BONUS:
        return (f"lay out {2 * len(state.players)} leprechaun cards and enter them on the page (the camera does not "
                "read them)")
    offers = bonus_offers(state)
    if not offers:
        return None
    listed = ", ".join(f"{b.id} (+{b.reward} gold)" for b in offers)
    return (f"{state.players[state.active].name} may claim a leprechaun card: {listed}; claim it on the page, or "
            "press CONFIRM to go on without")


def _explain_or_none(state: DiceTreasureState, seen: TableSeen) -> Explanation | None:
    try:
        return explain_table(state, seen)
    except GameError:
        return None


def _reserve_named(state: DiceTreasureState, view: CardsView, seen: TableSeen) -> TableSeen:
    """``seen`` with the active player's personal reserve, read in doubt, named by the game (:func:`_named`) where a
    die's colour was its only doubt and the colour read is none the player holds: during a turn the reserve only
    loses dice (placed, or paid for an exchange), and the end of the turn keeps dice of the reserve and the current
    dice, so every die it can hold is one of those (a die taken from the common reserve in an exchange and kept is
    checked by the common reserve, which must show the die paid for it: :func:`_loose_unseen`). A blue 6 read between
    purple and blue was taken as a purple one and explained as an exchange the common reserve did not show, asked
    three times (four players, tuning seed 6705)."""
    zone = f"reserve-{state.active + 1}"
    read, could_be = view.read.get(zone), view.could_be.get(zone, ())
    if zone not in view.unsure_zones or not read or not any(could_be):
        return seen
    held = (*state.players[state.active].reserve, *state.hand)
    named = _named(read, could_be, held)
    if named == tuple(read) or Counter(named) - Counter(held):
        return seen
    return replace(seen, reserves={**(seen.reserves or {}), state.active: named})


def _settle_zones(state: DiceTreasureState, view: CardsView) -> CardsView:
    """``view`` with the loose zones read in doubt that cannot have changed and read as the game has them taken as
    the game's: another player's personal reserve, and before the roll every reserve and the common reserve (nothing
    moves them then). A reading that agrees with what the game knows is no question (seed 42: a roll was asked
    because the personal reserve, unchanged since the last turn, was read in doubt)."""
    reserves = dict(view.reserves)
    common = view.common
    left = []
    for zone in view.unsure_zones:
        read, could_be = view.read.get(zone, ()), view.could_be.get(zone, ())
        if zone.startswith("reserve-"):
            seat = int(zone.rsplit("-", 1)[1])
            if ((seat - 1 != state.active or state.phase is Phase.ROLL) and seat <= len(state.players)
                    and _agrees_in_doubt(read, could_be, state.players[seat - 1].reserve)):
                reserves[seat] = state.players[seat - 1].reserve
                continue
        elif (zone == "common-reserve" and state.phase is Phase.ROLL
              and _agrees_in_doubt(read, could_be, state.common)):
            common = state.common
            continue
        left.append(zone)
    return replace(view, reserves=reserves, common=common, unsure_zones=tuple(left))


def _unchanged_reserve(before: DiceTreasureState, after: DiceTreasureState, seat: int) -> bool:
    """Whether player ``seat``'s (0-based) personal reserve cannot have changed on the table just read: it is not the
    active player's during a turn (or it is before the roll), and the actions explained left it as it was."""
    return (seat < len(before.players) and (seat != before.active or before.phase is Phase.ROLL)
            and Counter(before.players[seat].reserve) == Counter(after.players[seat].reserve))


def _named(read: Sequence[Die], could_be: Sequence[str], game: Sequence[Die]) -> tuple[Die, ...]:
    """``read`` with each die whose colour was its only doubt taken as the other colour the reader named for it
    (``could_be``, per die of ``read``; the same face) where the game has such a die that the reading lacks, and the
    die as read is one the game lacks: the game says which of the reader's two colours it is (blue and purple,
    mostly). Every other die stays as read."""
    if not any(could_be):
        return tuple(read)
    extra = Counter(read) - Counter(game)  # read, but not the game's
    missing = Counter(game) - Counter(read)  # the game's, but not read
    out = []
    for die, other in itertools.zip_longest(read, could_be, fillvalue=""):
        assert isinstance(die, Die)
        alternative = Die(die.value, other) if other else None
        if alternative is not None and extra[die] > 0 and missing[alternative] > 0:
            extra[die] -= 1
            missing[alternative] -= 1
            die = alternative
        out.append(die)
    return tuple(out)


#: A colour's reference is learnt from this many distinct readings of its dice as the game has them, the latest
#: :data:`LEARN_KEEP` at most (see :meth:`DiceTreasureTable._learn_colours`).
LEARN_AFTER = 6
LEARN_KEEP = 60


def _lab_distance(a: Sequence[float], b: Sequence[float]) -> float:
    """The die reader's colour distance (``vision.colour.distance``: CIELAB, lightness halved)."""
    from vision.colour import distance

    return float(distance(a, b))


def _agrees_in_doubt(read: Sequence[Die], could_be: Sequence[str], game: Sequence[Die]) -> bool:
    """Whether loose dice as read are the game's ``game``, each die as read or, where its colour was its only doubt,
    as the other colour the reader named for it (:func:`_named`). A reading that needs any other change (a face, a
    die more or less, a colour the reader did not name) does not agree."""
    return len(read) == len(game) and Counter(_named(read, could_be, game)) == Counter(game)


def _empties_accounted(state: DiceTreasureState, view: CardsView, settled: frozenset[tuple[str, int]],
                       table: TableSeen) -> bool:
    """Whether every space still in doubt looks empty where the game has it empty, and every die of the turn is
    seen elsewhere: the tray, the active player's personal reserve and the common reserve all read surely, and
    exactly as the rules leave them when those spaces are empty. A die on one of them would be missing from the
    zones (two players, seed 41, and the held-out solo game 4403: a space near the reader's line of "empty" was
    asked about every turn of a round)."""
    if state.phase not in (Phase.TURN, Phase.SOLO_FILL):
        return False
    held = _held(state)
    for s in view.spaces:
        if s.sure or s.corrected or (s.card, s.space) in settled:
            continue
        if ((s.die is not None and not _looks_printed(state, s)) or s.card not in held
                or held[s.card][s.space - 1] is not None):
            return False
    seat = state.active + 1
    if view.tray is None or view.common is None or seat not in view.reserves:
        return False
    try:
        after = explain_table(state, _prints_emptied(state, view, settled, table)).state
    except GameError:
        return False
    return (Counter(after.hand) == Counter(view.tray) and Counter(after.common) == Counter(view.common)
            and Counter(after.players[state.active].reserve) == Counter(view.reserves[seat]))


def _prints_emptied(state: DiceTreasureState, view: CardsView, settled: frozenset[tuple[str, int]],
                    table: TableSeen) -> TableSeen:
    """``table`` with the spaces read in doubt as their own print (:func:`_looks_printed`) empty."""
    printed = {(s.card, s.space) for s in view.spaces if not s.sure and not s.corrected
               and (s.card, s.space) not in settled and _looks_printed(state, s)}
    if not printed:
        return table
    cards = {card: tuple(None if (card, i + 1) in printed else d for i, d in enumerate(dice))
             for card, dice in table.cards.items()}
    return replace(table, cards=cards)


def _looks_printed(state: DiceTreasureState, space: SeenSpace) -> bool:
    """Whether the die read in doubt on a space may be the space's own print: a space that asks for one colour is
    printed in that colour, with the pips of the value it asks for (if any), which the die reader may take for such a
    die (three players, seed 4602: "purple:6, the space may be empty" on yellow-6's purple 6 space, asked on every
    table of a round). A plain coloured space has no pips to tell, so any face read there in that colour may be the
    print (two players, seed 6901: yellow-9's plain blue space, shaded darker at one corner, read as a blue:2 in
    doubt and asked about at nine tables until a blue 2 was placed there)."""
    cards = _cards_in_play(state)
    if space.die is None or space.card not in cards:
        return False
    printed = cards[space.card].card.spaces[space.space - 1]
    return printed.colour == space.die.colour and printed.value in (None, space.die.value)


def _dice_say(state: DiceTreasureState, seen: CardsView, card: str, other: str) -> bool:
    """Whether the dice read on ``card`` say it is ``card`` and not ``other`` (both in play): every space of it
    read surely, exactly the dice the game has on ``card``, at least one die, and not what the game has on
    ``other`` were the card lying there ``other`` (:func:`_reads_as`). Were it ``other``, the dice lying on it would
    be ``other``'s (a round's mutual doubt between two look-alike cards in the middle was asked about on every turn,
    seed 4401)."""
    held = _held(state)
    if card not in held or other not in held or card not in seen.cards:
        return False
    read_surely = [s.die for s in seen.spaces if s.card == card and (s.sure or s.corrected)]
    # The spaces read surely: a space in doubt says nothing either way (two players under exposure 0.8, seed
    # 4804: two look-alike cards of one mat, one space of the dice-laden one in doubt, asked on every table).
    return (_reads_as(state, seen, card, card, sure_only=True) and any(d is not None for d in read_surely)
            and not _reads_as(state, seen, card, other, sure_only=True))


def _reads_as(state: DiceTreasureState, seen: CardsView, card: str, other: str, sure_only: bool = False) -> bool:
    """Whether the dice read (every space surely) on the spot where ``card`` was identified are what the game has on
    ``other`` (both in play), were that card ``other``: on the places both cards have a space, ``other``'s dice; on
    the places only ``card`` has one, none; and none in the game on the places only ``other`` has one (the reader,
    looking at ``card``'s spaces, would not see them). ``other`` = ``card``: the reading is the game's.
    ``sure_only``: the spaces read surely (at least one) are, the others left out."""
    cards = _cards_in_play(state)
    if card not in cards or other not in cards or card not in seen.cards:
        return False
    spaces = [s for s in seen.spaces if s.card == card]
    layout = cards[card].card.spaces
    if len(spaces) != len(layout):
        return False
    if sure_only:
        spaces = [s for s in spaces if s.sure or s.corrected]
    if not spaces or not all(s.sure or s.corrected for s in spaces):
        return False
    read = {layout[s.space - 1].pos: s.die for s in spaces}
    have = {space.pos: die for space, die in zip(cards[other].card.spaces, cards[other].dice, strict=True)}
    return (all(have.get(pos) == die for pos, die in read.items())
            and all(die is None for pos, die in have.items() if pos not in {space.pos for space in layout}))


def _cards_in_play(state: DiceTreasureState) -> dict[str, Any]:
    """Card id -> the card in play (``CardInPlay``: the deck card and its dice), the players' and the middle's."""
    out = {cip.card.id: cip for player in state.players for cip in player.cards}
    out.update({cip.card.id: cip for cip in state.middle})
    return out


def _owned(state: DiceTreasureState, zone: str, before: frozenset[str] = frozenset()) -> set[str]:
    """The cards the game may have lying in ``zone``: the middle holds its cards and any claimed card (claimed
    there, or the solo game's laid aside there); a player's mat that player's cards in play and those too (a
    claimed card stays where it lay until the round ends, and with 3 or 4 players the middle's cards overflow onto
    the mats' free spots). ``before``: the cards claimed in earlier rounds (off the table)."""
    middle = {c.card.id for c in state.middle} | ({c.id for p in state.players for c in p.claimed} - before)
    if zone == "middle":
        return middle
    if zone.startswith("motif-cards-"):
        seat = int(zone.rsplit("-", 1)[1]) - 1
        if 0 <= seat < len(state.players):
            return middle | {c.card.id for c in state.players[seat].cards}
    return set()


def _by_mat(state: DiceTreasureState, seen: CardsView, before: frozenset[str] = frozenset()) -> CardsView:
    """``seen`` without the look-alike doubts the mats settle once a round's cards are dealt: a card lies on the mat
    of the player it was dealt to (or in the middle), so a card read where the game has it, doubted as a card the
    game has elsewhere or not at all, is that card (three players at about 1 px/mm, held-out seed 4409: every
    look-alike card was asked about on every table)."""
    if state.phase in (Phase.DEAL, Phase.SOLO_DEAL, Phase.BONUS) or not seen.doubtful_cards:
        return seen
    doubtful = dict(seen.doubtful_cards)
    for card, (_, other) in seen.doubtful_cards.items():
        owned = _owned(state, seen.spots.get(card, ("", 0))[0], before)
        if card in owned and other not in owned:
            del doubtful[card]
    return replace(seen, doubtful_cards=doubtful)


def _card_doubts(state: DiceTreasureState, view: CardsView, seen: CardsView | None = None,
                 before: frozenset[str] = frozenset()) -> list[str]:
    """The cards identified doubtfully that the game does not settle. A card the game has in play (or claimed)
    stays where it was dealt all round, so a doubt between it and a card that cannot be on the table now (not in
    the draw pile, not in play) is no doubt; while cards are dealt, a doubt between two cards of the draw pile
    is asked."""
    dealing = state.phase in (Phase.DEAL, Phase.SOLO_DEAL, Phase.BONUS)
    present = set(in_play(state)) | ({c.id for p in state.players for c in p.claimed} - before)
    # The mats of the players dealt already this round: their deal is recorded, and the deal now is read from
    # another mat (two players, seed 4801: the first player's look-alike card, answered at her deal, was asked
    # again at the second player's).
    done = {f"motif-cards-{seat + 1}" for seat in state.order()[:state.dealt]} if state.phase is Phase.DEAL else set()
    out = []
    for card, (where, other) in view.doubtful_cards.items():
        if where.split(" ", 1)[0] in done:
            continue
        # While cards are dealt any card may lie on the table (last round's, claimed ones not yet put away):
        # only a sure identification deals a card. Cards are dealt onto the mats: a doubt about a card elsewhere
        # (the solo game's claimed cards aside in the middle) deals nothing.
        if not dealing and card in present and other not in present:
            continue
        if dealing and not where.startswith("motif-cards-"):
            continue
        if not dealing and seen is not None and _dice_say(state, seen, card, other):
            continue
        if not dealing and seen is not None and _reads_as(state, seen, card, card) and _reads_as(state, seen, card,
                                                                                                 other):
            # Which of the two it is does not matter on this table: the dice read there (none, most often, both
            # cards just dealt) are the game's on either, so nothing happened on it whichever it is. Asked once a
            # die arrives on it (three players at about 1 px/mm, seed 4602: two look-alike cards of one mat, both
            # empty, asked about on every table of a round).
            continue
        named = "another card" if other == "?" else other
        out.append(f"{where}: looks like {card} but could be {named}: straighten it or press CONFIRM")
    return out


#: How many of the game's states since the table last showed the game's a still table is compared with.
PAST_STATES = 24


def _patches_of(image: Any, reading: Any, pictures: Mapping[Any, Any], halves: dict[Any, int]) -> dict[Any, Any]:
    """The change gate's patches of a frame read: each space of an identified card, (zone, spot, space number) ->
    the frame around its middle (a square about 0.8 of the spaces' pitch: one space, not its neighbours; one size
    per place, kept in ``halves``), and each loose zone's picture on the mat (the reader's glance)."""
    out: dict[Any, Any] = {}
    height, width = image.shape[:2]
    for item in reading.cards:
        centres = [d.centre_px for d in item.dice]
        pitch = min((((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5 for i, a in enumerate(centres)
                     for b in centres[i + 1:]), default=0.0)
        for d in item.dice:
            key = (item.reading.zone, item.reading.spot, d.space)
            if key not in halves:
                if pitch < 8:
                    continue
                halves[key] = max(4, round(0.4 * pitch))
            half = halves[key]
            x, y = round(d.centre_px[0]), round(d.centre_px[1])
            if half <= x < width - half and half <= y < height - half:
                out[key] = image[y - half:y + half, x - half:x + half]
    for key, picture in pictures.items():
        if isinstance(key, str):  # a loose zone (card spots are (zone, spot) pairs)
            out[key] = picture
    return out


#: A space's patch whose mean colour moved by more than this (levels of 0-255, in some channel, beyond the median move
#: of every space compared: one light for the whole table) since its reference changed, whatever the gate says. The
#: gate takes each place's own mean difference out (a smooth change of light over the place), and a die covers most
#: of a space's patch: a purple die placed on an empty green space under a 1.2 px blur (tuning seed 4904), its pips
#: faint, scored 26.7 against the gate's 32 and was carried as "empty", surely, on every table of the round.
MEAN_MOVED = 20.0


def _mean_bgr(patch: Any) -> Any:
    return np.asarray(patch, np.float32).reshape(-1, np.asarray(patch).shape[-1]).mean(axis=0)


def _moved_means(patches: Mapping[Any, Any], reference: Mapping[Any, Any]) -> set[Any]:
    """The spaces (tuple keys) of ``patches`` whose mean colour moved from ``reference``'s by more than
    :data:`MEAN_MOVED` beyond the median move of all of them (a change of light moves every place alike)."""
    moves = {key: _mean_bgr(patch) - reference[key] for key, patch in patches.items()
             if isinstance(key, tuple) and key in reference}
    # The table's light from the median over the places (the gate's own rule: from at least four of them).
    common = np.median(np.array(list(moves.values())), axis=0) if len(moves) >= 4 else np.zeros(3, np.float32)
    return {key for key, move in moves.items() if float(np.abs(move - common).max()) > MEAN_MOVED}


def _ends_round_unseen(state: DiceTreasureState, actions: Sequence[Any], seen: CardsView) -> bool:
    """Whether ``actions`` end a turn with dice still in hand and so end the round (or the game) while none of the
    cards in play is in view: the cleared table cannot show whether those dice were placed first."""
    for action in actions:
        try:
            after = DICE_TREASURE.apply(state, action)
        except GameError:
            return False
        if (isinstance(action, EndTurn) and state.hand and (after.round != state.round or after.phase in
                                                            (Phase.DEAL, Phase.OVER))
                and not set(in_play(state)) & set(seen.cards)):
            return True
        state = after
    return False


def _dice_not_placed(state: DiceTreasureState, seen: CardsView, actions: Sequence[Any]) -> list[str]:
    """The dice seen on cards in play (sure or not) on spaces the game has empty that ``actions`` do not place there,
    as "card space N: die" (empty: every die seen on a card is the game's or placed by ``actions``)."""
    placed = {(a.card, a.space) for a in actions if isinstance(a, Place)}
    cards = _cards_in_play(state)
    out = []
    for card, dice in seen.cards.items():
        held = cards.get(card)
        if held is None:
            continue
        for n, die in enumerate(dice, start=1):
            if die is not None and n <= len(held.dice) and held.dice[n - 1] is None and (card, n) not in placed:
                out.append(f"{card} space {n}: {die}")
    return out


def _with_missed(state: DiceTreasureState, seen: CardsView,
                 shown: DiceTreasureState | None = None) -> CardsView | None:
    """``seen`` with the spaces read empty where the game has a die (a die never leaves its card during a round)
    given the game's die, surely; None when there are none, or a player corrected or confirmed the reading. Used
    only when the loose zones then agree with the explanation: had the die left the card it would lie in one of
    them, and a table behind the game is waited for before (two players under exposure 0.7, seed 4604: dice on
    other players' cards missed surely, asked on nearly every table). ``shown``: the state the table last showed;
    on the cards the active player may place on now, only dice the game had there then are given (a die the
    players placed since, by answering, may not be on the table yet: three players, seed 4602, an "end" explained
    from a table a turn behind the game; a table a whole turn behind is waited for, :meth:`_passed`)."""
    if seen.confirmed or any(s.corrected for s in seen.spaces):
        return None
    held = _held(state)
    before = dict(held)
    if shown is not None:
        then = _held(shown)
        before.update({c.card.id: then.get(c.card.id, ()) for c in target_cards(state)})
    cards = dict(seen.cards)
    spaces = []
    missed = False
    for s in seen.spaces:
        have = held.get(s.card, ())
        if (s.die is None and s.space <= len(have) and have[s.space - 1] is not None
                and before.get(s.card, ())[s.space - 1:s.space] == (have[s.space - 1],)):
            s = replace(s, die=have[s.space - 1], sure=True, why="")
            dice = list(cards[s.card])
            dice[s.space - 1] = s.die
            cards[s.card] = tuple(dice)
            missed = True
        spaces.append(s)
    return replace(seen, cards=cards, spaces=tuple(spaces)) if missed else None


def _zones_fit(state: DiceTreasureState, view: CardsView, before: DiceTreasureState | None = None) -> bool:
    """Whether the loose zones as read (sure or not) hold exactly ``state``'s dice: the tray its current dice, the
    common reserve its common reserve, each personal reserve read that player's (False when the tray or the common
    reserve was not read at all). With ``before`` (the state the actions leading to ``state`` started from) the
    common reserve may differ by one die missed or misread among those that lay there before, but every die the
    actions sent there must be seen and none they took from it (:func:`_common_shows`)."""
    read = view.read
    if "tray" not in read or "common-reserve" not in read:
        return False
    # A die read with only its colour in doubt is the game's where the other colour the reader named is.
    if not _agrees_in_doubt(read["tray"], view.could_be.get("tray", ()), state.hand):
        return False
    common = _named(read["common-reserve"], view.could_be.get("common-reserve", ()), state.common)
    if before is not None:
        if not _common_shows(before, state, common):
            return False
    elif Counter(common) != Counter(state.common):
        return False
    for zone, dice in read.items():
        if zone.startswith("reserve-"):
            seat = int(zone.rsplit("-", 1)[1]) - 1
            if seat < len(state.players) and not _agrees_in_doubt(dice, view.could_be.get(zone, ()),
                                                                  state.players[seat].reserve):
                return False
    return True


def _common_shows(before: DiceTreasureState, after: DiceTreasureState, read: Sequence[Die]) -> bool:
    """Whether the common reserve read shows what the actions from ``before`` to ``after`` did to it: every die they
    sent there seen, every die they took from it gone, and at most one other die missed or misread (a reserve of
    a dozen dice or more, read whole at about 1.3 px/mm, misses one now and then; held-out seed 4406), but for a
    die of the active player's personal reserve sent there."""
    was, now, seen = Counter(before.common), Counter(after.common), Counter(read)
    if any(seen[d] < now[d] for d in now - was) or any(seen[d] > now[d] for d in was - now):
        return False
    off = sum(((seen - now) + (now - seen)).values())
    if off != 1:
        return off == 0
    # Not when a die of the active player's personal reserve went to the common reserve: an exchange of that die
    # for one of the common reserve, placed on a card where the camera missed it, looks so with the die taken as the
    # one missed (two players under blur 1.2, seed 4904, measured: a wrong "end").
    left = Counter(before.players[before.active].reserve) - Counter(after.players[before.active].reserve)
    return not left & (now - was)


def _fits(state: DiceTreasureState, view: CardsView) -> bool:
    """Whether the table read is ``state``'s: the loose zones as read (:func:`_zones_fit`), every space read surely
    holds the die ``state`` has there, and every card identified is in play or claimed in ``state``."""
    if not _zones_fit(state, view):
        return False
    held = _held(state)
    claimed = {c.id for p in state.players for c in p.claimed}
    for s in view.spaces:
        if s.card in held:
            if (s.sure or s.corrected) and held[s.card][s.space - 1] != s.die:
                return False
        elif s.card not in claimed:
            return False
    return all(card in held or card in claimed for card in view.cards)


def _fits_missed(state: DiceTreasureState, view: CardsView) -> bool:
    """:func:`_fits`, or so with the dice ``state`` has on the cards that the camera read as empty given it
    (:func:`_with_missed`): a table a few actions behind the game, where the camera missed dice on other players'
    cards, was otherwise explained from the game's state with those dice (and the active player's, not yet placed
    on the table) taken as the game's (three players, seed 4602: an "end" from the table of the turn before, the
    players having answered ahead of it)."""
    if _fits(state, view):
        return True
    patched = _with_missed(state, view)
    return patched is not None and _fits(state, patched)


def _loose_unseen(state: DiceTreasureState, actions: Sequence[Any], after: DiceTreasureState,
                  view: CardsView) -> list[str]:
    """The question to ask when ``actions`` end a turn or exchange with the common reserve but the loose zones as
    read are not those the explanation leads to (``after``): the end and the exchange are known from the tray and
    the reserves alone, so both dice of an exchange must be seen to swap and the dice left at an end seen in the
    common reserve (held-out seeds 4406-4409: exchanges and ends explained from a table the game and the camera
    disagreed about, none of which happened). Empty: nothing to ask."""
    if not any(isinstance(a, (EndTurn, Exchange)) for a in actions) or _zones_fit(after, view, state):
        return []
    who = state.players[state.active].name
    what = "the end of the turn" if any(isinstance(a, EndTurn) for a in actions) else "an exchange"
    common = " ".join(map(str, view.read.get("common-reserve", ()))) or "empty"
    return [f"{who}'s table looks like {what}, but the common reserve (looks {common}) and the tray do not show "
            f"it ({' '.join(map(str, after.common)) or 'nothing'} expected there): correct them on the page or "
            "press CONFIRM"]


#: Two dice of one face and colour this close (frame px; a die is ~20 px in a 1280x960 frame of a whole table) lie
#: where they lay: a rolled die lands elsewhere.
SAME_PLACE_PX = 4.0


def _unrolled(tray: Sequence[tuple[Die, tuple[float, float]]],
              before: Sequence[tuple[Die, tuple[float, float]]]) -> bool:
    """Whether some die of ``tray`` lies where the same die (face and colour) lay in ``before``."""
    return any(die == was and abs(at[0] - where[0]) <= SAME_PLACE_PX and abs(at[1] - where[1]) <= SAME_PLACE_PX
               for die, at in tray for was, where in before)


def _until_offer(state: DiceTreasureState, actions: Sequence[Any]) -> tuple[Any, ...]:
    """The actions up to the first state where the active player may claim a leprechaun card (the device offers
    it before the turn goes on)."""
    out: list[Any] = []
    for action in actions:
        out.append(action)
        try:
            state = DICE_TREASURE.apply(state, action)
        except GameError:
            return tuple(actions)
        if bonus_offers(state):
            break
    return tuple(out)


def _until_roll(state: DiceTreasureState, actions: Sequence[Any], tray: Sequence[Die]) -> tuple[Any, ...]:
    """The actions before the first roll: the tray was read unsurely, and a roll is asked, never guessed. With
    dice in the tray an end of the turn is cut too, while the player still has current dice: they may be those dice
    misread. With none left (every die placed), dice in the tray are the next roll, which only the next player makes
    once the turn has ended (two players, seed 6901: the turn's end was waited for silently behind a roll read in
    doubt, and the next player's first placement was asked about as a die on the wrong player's card)."""
    out: list[Any] = []
    for action in actions:
        if isinstance(action, Roll) or (isinstance(action, EndTurn) and tray and state.hand):
            break
        out.append(action)
        try:
            state = DICE_TREASURE.apply(state, action)
        except GameError:
            break
    return tuple(out)


def _view(seen: Any) -> CardsView:
    if not isinstance(seen, CardsView):
        raise SessionError("nothing is read of the motif cards")
    return seen


def _by_reserve(state: DiceTreasureState, seen: Mapping[str, Sequence[Die | None]],
                reserve: tuple[Die, ...] | None) -> tuple[Any, ...] | None:
    """The shortest explanation whose personal reserve is the one seen, if exactly one state fits."""
    if reserve is None:
        return None
    options = explain_placements(state, seen)
    shortest = [e for e in options if len(e.actions) == len(options[0].actions)]
    fits = [e for e in shortest if Counter(e.state.players[state.active].reserve) == Counter(reserve)]
    states = {repr(e.state.players[state.active]) for e in fits}
    return fits[0].actions if len(states) == 1 else None


def _held(state: DiceTreasureState) -> dict[str, tuple[Die | None, ...]]:
    """Card id -> the dice the game has on it, for every card in play (the players' and the middle's)."""
    held = {cip.card.id: cip.dice for player in state.players for cip in player.cards}
    held.update({cip.card.id: cip.dice for cip in state.middle})
    return held


def _settle(state: DiceTreasureState, seen: CardsView, targets: set[str]) -> tuple[CardsView,
                                                                                   frozenset[tuple[str, int]]]:
    """``seen`` with the doubtful spaces the game already knows taken from the game: dice stay on their card all
    round, and only the active player's cards (or the middle's) can change now. What is left to ask is a
    doubtful space of those cards that the game has empty (a die may just have arrived there), unless only its
    face was doubtful and the one die of its colour the player could have placed has the face read."""
    held = _held(state)
    cards = dict(seen.cards)
    settled = set()
    # The dice the active player can place now (after exchanges, the common reserve's too).
    available = [*state.hand, *state.players[state.active].reserve, *state.common]
    for s in seen.spaces:
        if s.sure or s.corrected:
            continue
        if s.card not in held:
            if s.card not in targets:  # a claimed card still in view, or last round's: nothing depends on it
                settled.add((s.card, s.space))
            continue
        have = held[s.card][s.space - 1]
        if have is None and s.card in targets:
            # A die just placed whose face alone was doubtful: sure after all when the game has exactly one
            # value of that colour to place, and it is the value read (the reading and the game agree).
            values = {d.value for d in available if s.die is not None and d.colour == s.die.colour}
            if s.die is not None and s.why.startswith("face") and ";" not in s.why and values == {s.die.value}:
                settled.add((s.card, s.space))
            continue
        dice = list(cards[s.card])
        dice[s.space - 1] = have
        cards[s.card] = tuple(dice)
        settled.add((s.card, s.space))
    return replace(seen, cards=cards), frozenset(settled)


def _changed_elsewhere(state: DiceTreasureState, seen: CardsView, targets: set[str]) -> list[str]:
    """Cards seen that the active player may not place on now whose dice differ from the game's."""
    discarded = {c.id for c in state.discards}
    held: dict[str, tuple[str, tuple[Die | None, ...]]] = {}
    for player in state.players:
        for cip in player.cards:
            held[cip.card.id] = (player.name, cip.dice)
    for cip in state.middle:
        held[cip.card.id] = ("the middle", cip.dice)
    claimed = {c.id for player in state.players for c in player.claimed}
    out = []
    for card, dice in seen.cards.items():
        if card in targets or card in claimed:  # a claimed card still in view is no error
            continue
        if card in discarded and card not in held:
            continue  # a card of the last round not yet cleared away (or the solo game's discarded ones)
        if card not in held:
            out.append(f"card {card} is on the table but not in this round of the game: was it dealt?")
            continue
        owner, have = held[card]
        # The player whose turn it is, before the roll is known, places on nothing yet: a die seen on their card
        # was placed from a roll the camera has not read (two players, seed 6901: the roll read in doubt).
        why = ("the roll has not been read yet: enter it on the page" if state.phase is Phase.ROLL
               and owner == state.players[state.active].name else "only the player whose turn it is places now")
        for i, (was, now) in enumerate(zip(have, dice, strict=False), 1):
            if was != now:
                out.append(f"card {card} space {i} ({owner}'s): the game has {was or 'nothing'}, the camera sees "
                           f"{now or 'nothing'}; {why}")
    return out


ADAPTER = DiceTreasureTable
