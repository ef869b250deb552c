"""The rules of the four games: pure functions of states and actions, no I/O, no clocks, no chance.

``engine.find_game(name)`` returns a game by name; each game lives in its own subpackage
(``engine.pasa``, ``engine.pyradice``, ``engine.pyramido``, ``engine.dicetreasure``) and follows the
contract in :mod:`engine.game`. Every game package has the same files: ``state`` (the state and actions),
``game`` (the registered game), ``observe`` (which action explains what the camera saw), ``words`` (actions in
words, the table as text), ``advice`` where the game has an advisor, and ``cli`` for the game's own commands.
Shared by all: :mod:`engine.serial` (JSON, and the one tagged action codec), :mod:`engine.perft` (move counts),
:mod:`engine.simulate` (seeded random games) and :mod:`engine.cli` (``companion game GAME ...``, ``companion play``).
"""

from engine.dice import FACES, PALETTES, Die
from engine.errors import (
    AmbiguousActionError,
    GameError,
    IllegalActionError,
    InvalidActionError,
    InvalidStateError,
)
from engine.game import (
    ChancePrompt,
    Game,
    LegalAction,
    PlayerScore,
    RuleOption,
    Score,
    Status,
    find_game,
    register,
)

__all__ = [
    "FACES",
    "PALETTES",
    "AmbiguousActionError",
    "ChancePrompt",
    "Die",
    "Game",
    "GameError",
    "IllegalActionError",
    "InvalidActionError",
    "InvalidStateError",
    "LegalAction",
    "PlayerScore",
    "RuleOption",
    "Score",
    "Status",
    "find_game",
    "register",
]
