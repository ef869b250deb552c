"""The event log: every game and every accepted action, append-only in SQLite, in the state directory.

The log is the truth; the in-memory state is rebuilt from it at start. An action is committed here
before anyone (page, LEDs) is told about it, so a power cut or ``kill -9`` loses nothing that was
accepted. Undo is an event too (it cancels the latest action not yet cancelled), so the log is never
rewritten. The database runs in WAL mode with ``synchronous=FULL``: a commit that returned is on disk.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from device.errors import StorageError

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    game TEXT NOT NULL,
    players TEXT NOT NULL,
    options TEXT NOT NULL,
    mode TEXT NOT NULL,
    created REAL NOT NULL,
    finished REAL,
    seed INTEGER
);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    kind TEXT NOT NULL CHECK (kind IN ('action', 'undo')),
    action TEXT,
    origin TEXT NOT NULL,
    frame INTEGER,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS events_game ON events(game_id, seq);
"""


@dataclass(frozen=True)
class GameRecord:
    """One game as the log holds it: who, what rules, and its effective actions (undos applied)."""

    id: int
    game: str
    players: tuple[str, ...]
    options: Mapping[str, str]
    mode: str
    created: float
    finished: float | None
    actions: tuple[str, ...]  # each the game's action JSON
    origins: tuple[str, ...]
    seed: int | None = None  # the set-up's seed (a quarry, a deck), so the set-up is rebuilt exactly


class EventLog:
    """The SQLite event log. Thread-safe: one connection, one lock (writes are rare: a few per turn)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(SCHEMA)
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(games)")}
            if "seed" not in columns:  # a log written before set-ups had seeds
                self._db.execute("ALTER TABLE games ADD COLUMN seed INTEGER")
        except (sqlite3.Error, OSError) as exc:
            raise StorageError(f"cannot open the event log {str(self.path)!r}: {exc}") from None
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> EventLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self, sql: str, params: Sequence[Any]) -> int:
        with self._lock:
            try:
                cursor = self._db.execute(sql, params)
            except sqlite3.Error as exc:
                raise StorageError(f"cannot write the event log {str(self.path)!r}: {exc}") from None
            return int(cursor.lastrowid or 0)

    def new_game(
        self, game: str, players: Sequence[str], options: Mapping[str, str], mode: str, seed: int | None = None
    ) -> int:
        return self._write(
            "INSERT INTO games (game, players, options, mode, created, seed) VALUES (?, ?, ?, ?, ?, ?)",
            (game, json.dumps(list(players)), json.dumps(dict(options), sort_keys=True), mode, time.time(), seed),
        )

    def append(self, game_id: int, action_json: str, origin: str, frame: int | None = None) -> int:
        """Append an accepted action; ``frame`` is the source's frame index (lets a replay resume)."""
        return self._write(
            "INSERT INTO events (game_id, kind, action, origin, frame, at) VALUES (?, 'action', ?, ?, ?, ?)",
            (game_id, action_json, origin, frame, time.time()),
        )

    def append_undo(self, game_id: int, origin: str, frame: int | None = None) -> int:
        return self._write(
            "INSERT INTO events (game_id, kind, action, origin, frame, at) VALUES (?, 'undo', NULL, ?, ?, ?)",
            (game_id, origin, frame, time.time()),
        )

    def amend(
        self, game_id: int, undo: int, actions: Sequence[tuple[str, str]], origin: str, frame: int | None = None
    ) -> None:
        """Cancel the latest ``undo`` actions (an undo event from ``origin`` each) and append ``actions``
        ((JSON, origin) pairs) in one transaction: a correction of an earlier reading is in the log whole or
        not at all."""
        now = time.time()
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    for _ in range(undo):
                        self._db.execute(
                            "INSERT INTO events (game_id, kind, action, origin, frame, at) "
                            "VALUES (?, 'undo', NULL, ?, ?, ?)",
                            (game_id, origin, frame, now),
                        )
                    for action_json, origin in actions:
                        self._db.execute(
                            "INSERT INTO events (game_id, kind, action, origin, frame, at) "
                            "VALUES (?, 'action', ?, ?, ?, ?)",
                            (game_id, action_json, origin, frame, now),
                        )
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise StorageError(f"cannot write the event log {str(self.path)!r}: {exc}") from None

    def last_frame(self, game_id: int) -> int | None:
        """The highest source frame index any event of the game came from (None: none recorded)."""
        rows = self._query("SELECT max(frame) FROM events WHERE game_id = ?", (game_id,))
        return rows[0][0] if rows and rows[0][0] is not None else None

    def finish(self, game_id: int, finished: bool = True) -> None:
        self._write("UPDATE games SET finished = ? WHERE id = ?", (time.time() if finished else None, game_id))

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            try:
                return list(self._db.execute(sql, params))
            except sqlite3.Error as exc:
                raise StorageError(f"cannot read the event log {str(self.path)!r}: {exc}") from None

    def latest_game_id(self) -> int | None:
        rows = self._query("SELECT max(id) FROM games")
        return rows[0][0] if rows and rows[0][0] is not None else None

    def game_ids(self) -> list[int]:
        return [r[0] for r in self._query("SELECT id FROM games ORDER BY id")]

    def game(self, game_id: int) -> GameRecord:
        rows = self._query(
            "SELECT id, game, players, options, mode, created, finished, seed FROM games WHERE id = ?", (game_id,)
        )
        if not rows:
            raise StorageError(f"no game {game_id} in the event log")
        gid, name, players, options, mode, created, finished, seed = rows[0]
        actions: list[tuple[str, str]] = []
        for kind, action, origin in self._query(
            "SELECT kind, action, origin FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
        ):
            if kind == "undo":
                if actions:
                    actions.pop()
            else:
                actions.append((action, origin))
        return GameRecord(
            id=gid,
            game=name,
            players=tuple(json.loads(players)),
            options=json.loads(options),
            mode=mode,
            created=created,
            finished=finished,
            actions=tuple(a for a, _ in actions),
            origins=tuple(o for _, o in actions),
            seed=seed,
        )

    def check(self) -> str:
        """``"ok"`` or what SQLite's quick check says is wrong (for ``/healthz``)."""
        rows = self._query("PRAGMA quick_check")
        return str(rows[0][0]) if rows else "no answer"
