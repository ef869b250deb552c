"""The errors every game raises, in the style of python-chess.

All are ``ValueError`` subclasses so that a caller who only wants "was that input acceptable?" can catch
``ValueError``. Messages quote the bad input and, where it helps, say what would have been legal.
"""

from __future__ import annotations

from collections.abc import Iterable


class GameError(ValueError):
    """Base class of every error the engine raises about a state or an action."""


class InvalidActionError(GameError):
    """The action is malformed: it cannot mean anything in this game (bad syntax, out-of-range values)."""


class IllegalActionError(GameError):
    """The action is well formed but the rules do not allow it in this state."""


class AmbiguousActionError(GameError):
    """The observation or notation fits more than one legal action; the players must say which."""


class InvalidStateError(GameError):
    """A state (for instance one read from JSON or from the camera) is inconsistent with the rules."""


def legal_hint(options: Iterable[object], limit: int = 12) -> str:
    """Format a short 'legal would have been ...' list for an error message."""
    items = [str(o) for o in options]
    if not items:
        return "nothing is legal here"
    shown = ", ".join(items[:limit])
    more = f" and {len(items) - limit} more" if len(items) > limit else ""
    return f"legal: {shown}{more}"
