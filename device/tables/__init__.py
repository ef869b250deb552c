"""Table adapters: what the session needs to know about one game at the table.

One adapter per game, one module each, behind :class:`TableAdapter`, looked up by the game's name
(:func:`adapter_for`, :func:`catalog`), as the engine looks up games. An adapter

- makes the reader of its pieces for a table (:meth:`TableAdapter.frame_reader`: the recording's or the
  device's mats and taught colours -> a function from a camera frame to readings), says when two still
  frames read the same (:meth:`TableAdapter.readings_agree`, the stability filter's test) and makes
  readings from a recording's truth (:meth:`TableAdapter.truth_readings`, to test the pipeline apart from
  vision);
- turns what the camera read (:meth:`TableAdapter.observe`) into the game's **observation**, a frozen
  dataclass with the readings' confidences (dice in a tray for Paša), and applies a player's correction to
  it (:meth:`TableAdapter.correct`);
- asks the game's ``engine.<game>.observe`` which legal action explains the observation, or says why none
  can be taken as it is (illegal, ambiguous, unsure): :meth:`TableAdapter.explain`;
- says what CONFIRM, NEXT and a long CONFIRM mean now (:meth:`TableAdapter.button`; UNDO is the session's);
- builds the game's part of the page's JSON (:meth:`TableAdapter.view`).

Legality and scores come only from the engine; an adapter only asks it. A game whose pieces the camera
cannot read yet is played on the page (``live = "offline"``); its adapter still explains observations
built by hand, so its table logic is tested before its reader exists.
"""

from __future__ import annotations

import importlib
from abc import ABC
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from device.errors import SessionError
from engine.errors import GameError
from engine.game import GAME_MODULES, Game, find_game


@dataclass(frozen=True)
class ButtonChoice:
    """What a button press means now: take an action, start the next game, or move the cursor (``said``
    is what the press did, in words)."""

    action: Any = None
    new_game: bool = False
    said: str | None = None


@dataclass(frozen=True)
class Explained:
    """What an observation means: the engine actions that explain it (empty: nothing changed), or the
    problems that keep it from being taken as it is (shown to the players; the table then waits). ``waiting``:
    with neither, why the table is not taken yet though it differs from the game (said on the page, not asked:
    the players need not answer, but they are told the camera waits)."""

    actions: tuple[Any, ...] = ()
    problems: tuple[str, ...] = ()
    waiting: str = ""


class TableAdapter(ABC):
    """One game's table logic for the session. The default is the page-driven game: NEXT moves a cursor
    over the legal actions, CONFIRM takes the one under it, a long CONFIRM after the game starts the next."""

    #: The engine's game name this adapter serves.
    name: ClassVar[str]
    #: "camera" when the device reads this game from the camera, "offline" while only the page plays it.
    live: ClassVar[str] = "offline"
    #: Its readings are the dice recogniser's (the appliance's own reader, which a test may replace), not
    #: those of a reader of its own (:meth:`frame_reader`).
    reads_dice_tray: ClassVar[bool] = False

    def __init__(self, game: Game[Any, Any]) -> None:
        self.game = game
        self.cursor = 0  # index into the legal actions that NEXT moves and CONFIRM takes

    # --- the game's set-up ------------------------------------------------------------------------
    def record_options(self, options: dict[str, str], state_dir: Path) -> dict[str, str]:
        """The rule options as the game's record keeps them: an option naming what the owners taught this device
        (``state_dir``) becomes what was taught, so that the record never depends on a file. Default: as given."""
        return options

    def shown_options(self, options: Mapping[str, str]) -> dict[str, str]:
        """A record's rule options as the page's set-up form shows them (their choices, not what they keep)."""
        return dict(options)

    def pieces(self, options: Mapping[str, str]) -> str | None:
        """Which pieces the game is played with, in words, where the owners may teach their own (None: no
        such choice)."""
        return None

    # --- a recording replayed as a real table ------------------------------------------------------
    # A recording is rendered from a seeded game: the device replaying it with that seed knows what no real table
    # tells it (Pyradice's covered quarry dice, Pyramido's deck). ``companion replay --at-table`` sets the game up
    # as the players of a real table would (no seed) and answers the device's questions with what they would say.
    def at_table(self, players: Sequence[str], options: Mapping[str, str],
                 seed: int | None) -> tuple[dict[str, str], tuple[str, ...]]:
        """How the game a recording made from ``seed`` is set up at a real table: the rule options the players give
        (with what they type of the table's set-up), and the set-up steps the table's record begins with that the
        seeded game drew before its first action (the recording's true actions follow them). Default: the same
        options, no such steps (the seed sets nothing up the camera does not read)."""
        return dict(options), ()

    def told(self, state: Any, truths: Sequence[Any], asked: Sequence[str]) -> tuple[Any, ...]:
        """What the players of a recording tell the device, asked ``asked``, of what lies on the table that the game
        cannot know yet (``truths``: the recording's truth of every frame so far, the last one now's): actions
        that only record what is seen. Default: nothing."""
        return ()

    def confirmable(self, state: Any, truths: Sequence[Any], asked: Sequence[str]) -> bool:
        """Whether the players of a recording, asked ``asked`` about the table as last read, would press CONFIRM:
        every question is about a reading in doubt that CONFIRM accepts as read, and each such reading is what lies
        there (``truths``: the recording's truth of every frame so far, the last one now's). Default: never (the
        players answer with the recording's next action)."""
        return False

    def players_decide(self, state: Any, asked: Sequence[str]) -> bool:
        """Whether ``asked`` is no doubt about what the camera saw but the players' own part: a choice the rules leave
        to them, or what they enter of pieces the camera does not read. A replay counts such answers apart from the
        questions about readings (``players_decided`` beside ``players_answered``). Default: never."""
        return False

    def same_state(self, a: Any, b: Any) -> bool:
        """Whether two states are the same game (a replay's players use it to tell steps the device took as fewer
        actions). Default: equal."""
        return bool(a == b)

    def seen_only(self, action: Any) -> bool:
        """Whether ``action`` only records what the camera saw (it is no step of the game's true record)."""
        return False

    def loaded(self, state: Any) -> None:  # noqa: B027 (a hook: most adapters need nothing)
        """The game's state as the session loads it, before any frame is read (a reader that judges the table from
        the game's belief has it from the first frame). Default: nothing."""

    # --- reading the table ----------------------------------------------------------------------
    def frame_reader(self, table: Mapping[str, Any]) -> Callable[[Any], Sequence[Any]]:
        """The reader of this game's pieces for ``table`` (a recording's "table" section, or the device's own:
        :func:`device.tables.live_table`): a camera frame (BGR array) -> the readings :meth:`observe` takes.
        SessionError when this game's pieces cannot be read from the camera."""
        raise SessionError(f"{self.game.title} cannot be read from the camera yet: play it on the page (offline)")

    def truth_readings(self, truth: Any) -> Sequence[Any]:
        """The readings a perfect reader would make of a recorded frame's truth (``--reader truth``)."""
        raise SessionError(f"{self.game.title} recordings carry no truth this device can read")

    def readings_agree(self, a: Sequence[Any], b: Sequence[Any]) -> bool:
        """Whether two still frames' readings say the same (the stability filter settles on agreement)."""
        return tuple(a) == tuple(b)

    def arrange(self, readings: Sequence[Any]) -> Sequence[Any]:
        """The readings as the stability filter keeps and compares them (dice: one per place, in order)."""
        return tuple(readings)

    def annotate(self, image: Any, readings: Sequence[Any]) -> Any:
        """The camera frame with ``readings`` drawn on it for the page (a copy; default: the frame as it is)."""
        return image

    # --- what the camera saw -------------------------------------------------------------------
    def observe(self, readings: Sequence[Any], *, moved: bool) -> Any:
        """The observation for the readings of a still table (``moved``: the pieces were seen moving)."""
        raise SessionError(f"{self.game.title} cannot be read from the camera yet: play it on the page (offline)")

    def correct(self, seen: Any, index: int, value: Any) -> Any:
        """``seen`` with reading ``index`` set to ``value`` by a player; SessionError when that is no reading."""
        raise SessionError(f"{self.game.title} has no readings to correct")

    def confirm(self, seen: Any) -> Any:
        """``seen`` with every doubtful reading accepted as read (a player pressed CONFIRM)."""
        return seen

    def explain(self, state: Any, seen: Any) -> Explained:
        """The actions that explain ``seen`` from ``state``, or the problems to show."""
        return Explained(problems=(f"{self.game.title} does not read the table yet",))

    def is_table_action(self, action: Any) -> bool:
        """Whether ``action`` came from what lies on the table (so a correction of the reading replaces it)."""
        return False

    def seen_json(self, seen: Any) -> dict[str, Any]:
        """The observation for the page."""
        return {}

    def reading_at(self, seen: Any, x: float, y: float) -> int:
        """The index of the reading nearest to frame point (x, y) (a player pointing at a piece)."""
        raise SessionError(f"{self.game.title} has no readings to point at")

    # --- buttons -------------------------------------------------------------------------------
    def button(self, state: Any, button: str, *, long: bool) -> ButtonChoice:
        """What CONFIRM and NEXT mean now (UNDO is the session's)."""
        status = self.game.status(state)
        if status.finished:
            return ButtonChoice(new_game=True) if button == "confirm" and long else ButtonChoice()
        legal = self.game.legal(state)
        if not legal:
            return ButtonChoice(said="chance is awaited: enter it on the page" if status.awaiting == "chance"
                                else None)
        index = self.cursor % len(legal)
        if button == "next":
            self.cursor = (index + 1) % len(legal)
            return ButtonChoice(said=f"pointing at: {legal[self.cursor].label}")
        if button == "confirm" and not long:
            return ButtonChoice(action=self.game.parse_action(legal[index].text, state))
        return ButtonChoice()

    def reset_cursor(self) -> None:
        """After every accepted action: the cursor starts again at the first legal action."""
        self.cursor = 0

    def view_key(self) -> tuple[Any, ...]:
        """What, besides the state, the adapter's view and button meanings depend on (the cursor)."""
        return (self.cursor,)

    def button_meanings(self, state: Any) -> dict[str, str]:
        """What each button would do now, in words, for the page and the panel's help (empty: nothing)."""
        status = self.game.status(state)
        if status.finished:
            return {"confirm_long": "start a new game with the same players", "undo": "take back the last action"}
        legal = self.game.legal(state)
        out = {"undo": "take back the last action"}
        if legal:
            out["confirm"] = legal[self.cursor % len(legal)].label
            if len(legal) > 1:
                out["next"] = f"point at the next of {len(legal)} legal actions"
        return out

    # --- the page ------------------------------------------------------------------------------
    def view(self, state: Any) -> dict[str, Any]:
        """The game's part of the live page: the generic view (whose turn, what is awaited, the button
        cursor); games with their own page module add to it."""
        status = self.game.status(state)
        legal = self.game.legal(state) if not status.finished else []
        cursor = legal[self.cursor % len(legal)] if legal else None
        return {
            "kind": "generic",
            "to_move": status.to_move,
            "phase": status.phase,
            "awaiting": status.awaiting,
            "cursor": {"text": cursor.text, "label": cursor.label, "group": cursor.group} if cursor else None,
            "legal_count": len(legal),
            "hint": _generic_hint(status.awaiting, status.finished, bool(legal)),
        }


def _generic_hint(awaiting: str, finished: bool, has_legal: bool) -> str:
    if finished:
        return "Game over. Hold CONFIRM for a new game with the same players."
    if awaiting == "chance":
        return "Enter what the table shows (the box below says what)."
    if has_legal:
        return "Choose an action below, or NEXT to point at one and CONFIRM to take it."
    return ""


#: Marks on the page's camera view (BGR): an empty place, a doubt's ring, a mark's ink on a light or dark body.
EMPTY_MARK, DOUBT_RING = (235, 235, 235), (0, 0, 255)


def mark_reading(image: Any, centre: Sequence[float], body: tuple[int, int, int] | None, *, unsure: bool,
                 text: str = "", radius: int = 6) -> None:
    """Draw one reading on ``image`` (in place) at ``centre`` for the page's camera view: a disc in the colour
    read (``body``; None: a hollow ring, nothing there) with ``text`` on it (a face, a dot for an icon), ringed in
    red when the reader was unsure, the reading a player may tap on the page."""
    import cv2

    at = (round(float(centre[0])), round(float(centre[1])))
    if body is None:
        cv2.circle(image, at, radius, EMPTY_MARK, 1, cv2.LINE_AA)
    else:
        cv2.circle(image, at, radius, body, -1, cv2.LINE_AA)
        if text:
            ink = (20, 20, 20) if sum(body) > 3 * 150 else (250, 250, 250)
            scale = radius / 14
            (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
            cv2.putText(image, text, (at[0] - w // 2, at[1] + h // 2), cv2.FONT_HERSHEY_SIMPLEX, scale, ink, 1,
                        cv2.LINE_AA)
    if unsure:
        cv2.circle(image, at, radius + 2, DOUBT_RING, max(1, radius // 5), cv2.LINE_AA)


def explained_by(game: Game[Any, Any], state: Any, actions: Sequence[Any]) -> Explained:
    """``actions`` as an explanation if the engine accepts them in turn from ``state``, else the engine's
    reason as the problem (an adapter's last check before it hands actions to the session)."""
    try:
        for action in actions:
            state = game.apply(state, action)
    except GameError as exc:
        return Explained(problems=(str(exc),))
    return Explained(actions=tuple(actions))


#: Game name -> the module of its table adapter (its class is the module's ``ADAPTER``).
ADAPTER_MODULES: Mapping[str, str] = {
    "pasa": "device.tables.pasa",
    "pyradice": "device.tables.pyradice",
    "pyramido": "device.tables.pyramido",
    "dicetreasure": "device.tables.dicetreasure",
}


def live_table(state_dir: str | Path, game: str, players: int,
               options: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The device's own "table" section for a game's :meth:`TableAdapter.frame_reader`: the player count (the
    mats printed for it), the colours taught at this table (``device.teaching``'s store, by piece) and the game's
    rule options as its record keeps them (Dice Treasure's own deck among them)."""
    from device.teaching import TeachingStore  # only where a board game is read

    store = TeachingStore(state_dir)
    pieces = store.report(game).get("pieces", {})
    lessons = {piece: {name: list(lab) for name, lab in store.taught(game, piece).items()} for piece in pieces}
    return {"players": players, "lessons": lessons, "state_dir": str(state_dir), "options": dict(options or {})}


def adapter_class(name: str) -> type[TableAdapter]:
    try:
        module = importlib.import_module(ADAPTER_MODULES[name])
    except KeyError:
        raise SessionError(
            f"no table adapter for game {name!r}; games at the table: {', '.join(sorted(ADAPTER_MODULES))}"
        ) from None
    cls: type[TableAdapter] = module.ADAPTER
    return cls


def adapter_for(game: Game[Any, Any]) -> TableAdapter:
    """A fresh adapter for ``game`` (one per running game: it holds the button cursor)."""
    return adapter_class(game.name)(game)


def catalog() -> list[dict[str, Any]]:
    """Every game the device offers, from the engine's metadata: name, title, player counts, rule options
    (choices, default, doc, and ``text``: an example of the words an option's last choice takes, a table's set-up)
    and whether the camera reads it (``live``)."""
    out = []
    for name in GAME_MODULES:
        game = find_game(name)
        out.append({
            "name": game.name,
            "title": game.title,
            "players": [game.min_players, game.max_players],
            "options": {o.name: {"choices": list(o.choices), "default": o.default, "doc": o.doc,
                                 **({"text": o.text} if o.text else {})}
                        for o in game.options},
            "live": adapter_class(name).live,
        })
    return out
