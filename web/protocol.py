"""What the page needs of the running game session: the small protocol :func:`web.create_app` is handed.

The device's :class:`device.session.GameSession` implements it; the tests hand a fake. The page never
reaches into the device: everything it shows or changes goes through these methods.

Errors, by what they mean to a client (mapped to HTTP statuses in :func:`web.create_app`):

- ``ValueError`` (engine and session errors alike): the request cannot be carried out as asked, 400; an
  ``http_status`` attribute overrides the status (403 not paired, 409 nothing waits) and a ``field``
  attribute names the part of a set-up request that is wrong;
- :class:`engine.errors.IllegalActionError` and :class:`engine.errors.AmbiguousActionError`: the rules refuse
  it or it fits several actions, 409;
- ``OSError``: the device's storage failed, 503.
"""

from __future__ import annotations

from typing import Any, Protocol


class LiveFeed(Protocol):
    """The latest published snapshot and a way to wait for the next one (the SSE streams)."""

    @property
    def closed(self) -> bool: ...

    def latest(self) -> tuple[int, dict[str, Any]]: ...

    def wait(self, after: int, timeout: float) -> tuple[int, dict[str, Any]] | None: ...


class TableSession(Protocol):
    """The running session as the page sees it."""

    pairing_timeout_s: float

    @property
    def hub(self) -> LiveFeed: ...

    def publish(self) -> None: ...

    def catalog(self) -> list[dict[str, Any]]: ...

    def new_game(
        self, players: object, options: object = None, *, game: object, mode: object = "camera", seed: object = None,
    ) -> None:
        """Set up a game from a client's request: every field is checked before anything is written, and a
        refusal is a ValueError whose ``field`` names the bad one."""

    def legal(self) -> dict[str, Any]: ...

    def hint(self, seed: int = 0, budget_s: float = 0.3) -> dict[str, Any]:
        """The hint for the decision now: ``{"hint": {...ranked options...} | None, "reason": "no hint now: ..." |
        None, "version": N}``; never an error for a game with nothing to hint at."""

    def apply_text(self, text: str, origin: str, at: int | None = None) -> None: ...

    def undo(self, origin: str, at: int | None = None) -> None: ...

    def correct(self, index: int, value: Any, origin: str = "page") -> None: ...

    def confirm_table(self) -> bool: ...

    def press(self, button: str, *, long: bool = False, origin: str = "panel", paired: bool = True) -> str: ...

    def ask_pairing(self, token: str, replaces: str | None = None) -> str | None:
        """A browser asks to pair (``replaces``: its own earlier request): the short code to show on it (a
        paired page shows the same)."""

    def pairing_status(self, token: str) -> str:
        """"waiting", "approved", "refused" (several asked at once), "expired" or "unknown"."""

    def claim_pairing(self, token: str, label: str = "") -> str | None:
        """The new browser secret for an approved request (once), else None."""

    def is_paired(self, browser: str) -> bool:
        """Whether the device still holds the pairing of the browser with this secret."""

    def paired_browsers(self, current: str | None = None) -> list[dict[str, Any]]: ...

    def forget_browser(self, browser: str) -> bool:
        """Forget a paired browser by its listed id or its secret; False when there is none."""

    def forget_all_browsers(self) -> int: ...

    def games(self) -> list[dict[str, Any]]: ...

    def export(self, game_id: int | None = None) -> dict[str, Any]: ...

    def health(self) -> dict[str, Any]: ...

    def frame_jpeg(self, width: int = 800) -> bytes | None: ...

    def mat_sheets(self, game: str, players: int) -> list[dict[str, Any]]: ...

    def mat_sheet(self, game: str, number: int, players: int, paper: str | None, kind: str) -> bytes: ...

    def calibration(self, game: str, players: int) -> tuple[dict[str, Any], bytes | None]: ...

    def taught_colours(self, game: str) -> dict[str, Any]: ...

    def teach_colours(self, game: str, players: int | None = None) -> dict[str, Any]: ...

    def deck(self) -> dict[str, Any]: ...

    def read_deck_card(self) -> dict[str, Any]: ...

    def add_deck_card(self, card: Any) -> dict[str, Any]: ...

    def add_deck_bonus(self, requires: Any, reward: Any) -> dict[str, Any]: ...

    def remove_deck_card(self, card_id: str) -> dict[str, Any]: ...


#: The buttons of the panel (physical or virtual).
BUTTONS = ("confirm", "undo", "next")
