"""The game contract that every game module follows, and the registry that finds games by name.

Modelled on python-chess: a game is a class with class-level metadata (its name, title, player counts
and rule options) registered under its name; :func:`find_game` looks it up. A game object is stateless:
every method takes a state and returns a new one. States and actions are frozen dataclasses that
round-trip through JSON (:mod:`engine.serial`) and print as text that rebuilds them.

Chance is never the engine's: a roll, a drawn gem or a revealed domino is part of an action. When the
next step of a game is chance, :meth:`Game.legal_actions` is empty and :meth:`Game.status` says what is
awaited (``awaiting="chance"``); the simulator (:mod:`engine.simulate`) then asks
:meth:`Game.random_chance` for an outcome from a seeded generator, and at the table the camera supplies it.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from engine import serial
from engine.errors import InvalidActionError, InvalidStateError

if TYPE_CHECKING:
    from engine.advice import Advice

S = TypeVar("S")
A = TypeVar("A")


@dataclass(frozen=True)
class RuleOption:
    """A rule the rulebooks leave open: a name, the allowed values, the default and why."""

    name: str
    choices: tuple[str, ...]
    default: str
    doc: str
    #: An example of the words the option also takes for its last choice, a value the game reads (a table's
    #: set-up); empty: only the choices.
    text: str = ""

    def check(self, value: str) -> str:
        if value not in self.choices:
            raise InvalidActionError(
                f"rule option {self.name}={value!r} is not one of {', '.join(self.choices)}"
            )
        return value


@dataclass(frozen=True)
class PlayerScore:
    """One player's total and where it came from (category or source -> points)."""

    total: int
    breakdown: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Score:
    """Every player's score, in seat order."""

    players: Mapping[str, PlayerScore]

    def totals(self) -> dict[str, int]:
        return {name: s.total for name, s in self.players.items()}


@dataclass(frozen=True)
class Status:
    """Where a game stands: whose turn, which phase, what is awaited, whether it is over and who won.

    ``defects`` lists what is wrong with a state that was read (from JSON or the camera) rather than
    reached by legal actions; a state with defects is representable but not playable.
    """

    to_move: str | None
    phase: str
    awaiting: str = "decision"  # "decision", "chance" or "nothing" once finished
    finished: bool = False
    winners: tuple[str, ...] = ()
    defects: tuple[str, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.defects


@dataclass(frozen=True)
class LegalAction:
    """One legal action as the page and the panel show it: the engine's notation (what
    :meth:`Game.parse_action` reads back), words a player reads, and a group to lay buttons out by
    (for example ``"take"``, ``"place"``, ``"skill"``, ``"category"``)."""

    text: str
    label: str
    group: str


@dataclass(frozen=True)
class ChancePrompt:
    """What the players should enter when chance is awaited (a roll, a revealed domino, a drawn gem):
    ``what`` in words, an ``example`` in the engine's notation that :meth:`Game.parse_action` accepts,
    and the ``group`` the entry belongs to."""

    what: str
    example: str
    group: str = "chance"


class Game(ABC, Generic[S, A]):
    """One game's rules. Subclasses set the class attributes and implement the abstract methods."""

    name: ClassVar[str]
    title: ClassVar[str]
    #: Other names :func:`find_game` knows the game by (its full title spelled as a name, say).
    aliases: ClassVar[tuple[str, ...]] = ()
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    options: ClassVar[tuple[RuleOption, ...]] = ()
    state_type: ClassVar[type]
    action_type: ClassVar[Any]
    #: The groups :meth:`describe` puts actions in (each game's ``words.GROUPS``), for the page and ``help``.
    action_groups: ClassVar[tuple[str, ...]] = ()
    #: The forms of the actions :meth:`parse_action` reads, one per line, for ``help``.
    action_grammar: ClassVar[tuple[str, ...]] = ()

    # --- rule options -------------------------------------------------------------------------
    def resolve_options(self, given: Mapping[str, str] | None = None) -> dict[str, str]:
        """All rule options with defaults filled in; unknown names or values raise InvalidActionError."""
        known = {o.name: o for o in self.options}
        given = dict(given or {})
        unknown = set(given) - set(known)
        if unknown:
            raise InvalidActionError(
                f"unknown rule option(s) {sorted(unknown)} for {self.name}; known: {sorted(known) or 'none'}"
            )
        return {n: o.check(given.get(n, o.default)) for n, o in known.items()}

    def default_players(self, count: int | None = None) -> tuple[str, ...]:
        """Names for ``count`` seats (default: two where the game allows, else its fewest), for commands
        that start a game without being told who plays."""
        if count is None:
            count = min(max(2, self.min_players), self.max_players)
        if not self.min_players <= count <= self.max_players:
            raise InvalidActionError(
                f"{self.title} takes {self.min_players} to {self.max_players} players, got {count}"
            )
        names = ("ana", "ben", "cleo", "dan", "eva", "finn", "gia", "hugo")
        return tuple(names[i] if i < len(names) else f"player{i + 1}" for i in range(count))

    def check_players(self, players: Sequence[str]) -> tuple[str, ...]:
        names = tuple(players)
        if not self.min_players <= len(names) <= self.max_players:
            raise InvalidActionError(
                f"{self.title} takes {self.min_players} to {self.max_players} players, got {len(names)}"
            )
        if len(set(names)) != len(names) or any(not n.strip() for n in names):
            raise InvalidActionError(f"player names must be distinct and non-empty, got {list(names)}")
        return names

    # --- the contract -------------------------------------------------------------------------
    @abstractmethod
    def initial_state(
        self, players: Sequence[str], options: Mapping[str, str] | None = None, *, seed: int | None = None
    ) -> S:
        """The state before the first action. ``seed`` only drives a random setup; the same seed gives
        the same setup."""

    @abstractmethod
    def legal_actions(self, state: S) -> list[A]:
        """Every legal decision now; empty when chance is awaited or the game is over."""

    @abstractmethod
    def apply(self, state: S, action: A) -> S:
        """The state after ``action``; raises IllegalActionError (never mutates ``state``)."""

    @abstractmethod
    def score(self, state: S) -> Score:
        """Every player's score now, with a breakdown."""

    @abstractmethod
    def status(self, state: S) -> Status:
        """Whose turn, which phase, what is awaited, finished, winners, defects."""

    @abstractmethod
    def random_chance(self, state: S, rng: random.Random) -> A:
        """A chance action (a roll, a draw) drawn from ``rng``; only called when chance is awaited."""

    # --- text and JSON ------------------------------------------------------------------------
    def state_to_json(self, state: S) -> str:
        return serial.dumps(state)

    def state_from_json(self, text: str) -> S:
        result: S = serial.loads(self.state_type, text)
        return result

    def action_to_json(self, action: A) -> str:
        """``{"kind": KIND, ...fields}``: the one tagged codec (:func:`engine.serial.action_codec`)."""
        return serial.action_codec(self.action_type).dumps(action)

    def action_from_json(self, text: str) -> A:
        """The action in ``text`` (also JSON the event log stored before the one codec); InvalidActionError."""
        result: A = serial.action_codec(self.action_type).loads(text)
        return result

    def action_text(self, action: A) -> str:
        """Short text that :meth:`parse_action` turns back into ``action``. Defaults to ``str()``."""
        return str(action)

    @abstractmethod
    def parse_action(self, text: str, state: S | None = None) -> A:
        """Rebuild an action from its text; raise InvalidActionError quoting ``text`` if it means nothing."""

    # --- what the players read ---------------------------------------------------------------
    def describe(self, state: S, action: A) -> LegalAction:
        """``action`` for the page: its text, words and group. Games override this with their own words;
        the default shows the notation and groups by the action's class."""
        return LegalAction(self.action_text(action), self.action_text(action), type(action).__name__.lower())

    def part_title(self, part: str) -> str:
        """The words for one part of a score's breakdown (a category, a source of points)."""
        return part

    def entries(self, state: S) -> list[A]:
        """Actions a scorekeeper may enter in place of the chance step awaited, when nobody enters what chance
        brought (Paša: a turn's points written straight on the sheet). None by default."""
        return []

    def legal(self, state: S) -> list[LegalAction]:
        """Every legal decision now, described for the players (empty when chance is awaited)."""
        return [self.describe(state, action) for action in self.legal_actions(state)]

    def chance_prompt(self, state: S) -> ChancePrompt | None:
        """What the players should enter when chance is awaited, or None when a decision (or nothing) is.

        The default shows one outcome drawn from a fixed generator as the example, so the notation is
        always one the game accepts; games override it to say in words what is awaited."""
        if self.status(state).awaiting != "chance":
            return None
        example = self.random_chance(state, random.Random(0))
        return ChancePrompt(f"enter the outcome ({self.describe(state, example).label})",
                            self.action_text(example))

    def chance_outcomes(self, state: S) -> list[A] | None:
        """Every outcome of the chance awaited, for counting (:mod:`engine.perft`), or None where there are
        too many to list (a domino from an unknown deck, a handful of dice from a bag)."""
        return None

    def playout_policy(self) -> Callable[[S, list[A], random.Random], A] | None:
        """How random games choose among legal decisions (``companion game GAME simulate``), where a uniform
        choice would not give games of a realistic length; None: uniformly."""
        return None

    def board_text(self, state: S) -> str:
        """What is on the table, as text for a terminal (several lines; empty if the game shows nothing)."""
        return ""

    def advise(
        self, state: S, *, seed: int = 0, budget_s: float = 0.3, playouts: int | None = None
    ) -> Advice | None:
        """A hint for the decision now: the legal options ranked (:class:`engine.advice.Advice`), from seeded
        playouts within ``budget_s`` seconds (or exactly ``playouts`` per option, whatever the time), the same for
        the same seed and number of playouts; None where the game gives no hint or there is no decision to hint
        at (chance awaited, the game over)."""
        return None

    def check_state(self, state: S) -> S:
        """Raise InvalidStateError listing the defects of ``state``, or return it."""
        defects = self.status(state).defects
        if defects:
            raise InvalidStateError(f"{self.name} state is inconsistent: {'; '.join(defects)}")
        return state


_REGISTRY: dict[str, Game[Any, Any]] = {}
_ALIASES: dict[str, str] = {}
#: The game packages, in the order the page's catalogue lists them; each package is named after its game
#: (its ``Game.name``), and importing it registers the game. The one list of games: the command line's
#: per-game commands and benchmarks, the table adapters and the catalogue are derived from it.
GAME_MODULES: dict[str, str] = {
    "pasa": "engine.pasa",
    "pyradice": "engine.pyradice",
    "pyramido": "engine.pyramido",
    "dicetreasure": "engine.dicetreasure",
}

G = TypeVar("G", bound="Game[Any, Any]")


def register(game_cls: type[G]) -> type[G]:
    """Class decorator: register one instance of a game class under its ``name`` and ``aliases``."""
    _REGISTRY[game_cls.name] = game_cls()
    for alias in game_cls.aliases:
        _ALIASES[alias.lower()] = game_cls.name
    return game_cls


def instance(game_cls: type[G]) -> G:
    """The registered instance of ``game_cls`` (what :func:`find_game` returns for its name)."""
    game = _REGISTRY.get(game_cls.name)
    if not isinstance(game, game_cls):
        raise TypeError(f"{game_cls.__name__} is not registered (decorate it with @register)")
    return game


def find_game(name: str) -> Game[Any, Any]:
    """The game registered under ``name`` (or an alias); raise ValueError listing the known games."""
    import importlib

    key = name.lower()
    if key not in _REGISTRY and key in GAME_MODULES:
        importlib.import_module(GAME_MODULES[key])
    if key not in _REGISTRY and key not in _ALIASES:
        for module in GAME_MODULES.values():  # an alias: the games say their own
            importlib.import_module(module)
    try:
        return _REGISTRY[_ALIASES.get(key, key)]
    except KeyError:
        raise ValueError(f"unknown game {name!r}; known games: {', '.join(sorted(GAME_MODULES))}") from None
