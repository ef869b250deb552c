"""``companion pyradice ...``: the Pyradice engine from the command line, on state files in JSON.

    companion pyradice new --players ana ben --seed 7 > game.json
    companion pyradice status --state game.json      # phase, whose turn, defects of a camera state
    companion pyradice legal --state game.json       # every legal action, one per line
    companion pyradice apply --state game.json "roll-off 5 2" "take q2,0,0" > next.json
    companion pyradice score --state game.json       # per player, per level and per card
    companion pyradice explain --state game.json --seen seen.json   # which turn explains the observation
    companion pyradice simulate --games 100 --seed 1 --players 2
    companion pyradice perft --state game.json --depth 3

Bad input (a missing file, bad JSON, an illegal action) raises ValueError/OSError, which the
``companion`` entry point prints as one line and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

from engine.cli_support import read_state, rule_options
from engine.dice import Die
from engine.errors import InvalidActionError, InvalidStateError
from engine.game import instance
from engine.pyradice import pyramid as pyr
from engine.pyradice.game import PyradiceGame, level_results
from engine.pyradice.observe import Observation, explain_turn
from engine.pyradice.perft import perft
from engine.pyradice.state import Phase, PyradiceState
from engine.serial import from_jsonable

_GAME = instance(PyradiceGame)


def _read_state(path: str) -> PyradiceState:
    state: PyradiceState = read_state(_GAME, path)
    return state


def _write(text: str, out: str | None) -> None:
    if out:
        Path(out).write_text(text + "\n", encoding="utf-8")
    else:
        print(text)




def _new(args: argparse.Namespace) -> int:
    state = _GAME.initial_state(args.players, rule_options(args.option), seed=args.seed)
    _write(_GAME.state_to_json(state), args.out)
    return 0


def _status(args: argparse.Namespace) -> int:
    state = _read_state(args.state)
    st = _GAME.status(state)
    print(f"phase: {st.phase}; to move: {st.to_move or '-'}; awaiting: {st.awaiting}")
    if st.finished:
        print("finished; winners: " + ", ".join(st.winners))
    for d in st.defects:
        print(f"defect: {d}")
    if not st.defects and state.phase not in (Phase.ROLL_OFF, Phase.OVER):
        me = state.mover
        print(f"{me.name}: {len(me.pyramid)} dice, reserve {me.reserve or '-'}, hand {state.hand or '-'}")
        print("legal slots: " + " ".join(pyr.slot_text(s) for s in pyr.legal_slots(me.pyramid)))
        for level, result in level_results(state, me).items():
            print(f"level {level} {state.board.objectives[level - 1]}: {result}")
    return 1 if st.defects else 0


def _legal(args: argparse.Namespace) -> int:
    state = _GAME.check_state(_read_state(args.state))
    for action in _GAME.legal_actions(state):
        print(action)
    return 0


def _apply(args: argparse.Namespace) -> int:
    state = _GAME.check_state(_read_state(args.state))
    for text in args.actions:
        state = _GAME.apply(state, _GAME.parse_action(text, state))
    _write(_GAME.state_to_json(state), args.out)
    return 0


def _score(args: argparse.Namespace) -> int:
    state = _GAME.check_state(_read_state(args.state))  # a board with too few tokens cannot be scored
    for name, score in _GAME.score(state).players.items():
        print(f"{name}: {score.total}")
        for part, points in score.breakdown.items():
            print(f"  {part}: {points}")
    return 0


def _explain(args: argparse.Namespace) -> int:
    state = _GAME.check_state(_read_state(args.state))
    data = json.loads(Path(args.seen).read_text(encoding="utf-8"))
    seen = _observation(data)
    for action in explain_turn(state, seen, partial=args.partial):
        print(action)
    return 0


def _observation(data: Any) -> Observation:
    """Observation JSON: {"pyramid": [[[level, index], {"value": v, "colour": c}], ...],
    "quarry": [[[layer, row, col], die], ...] (optional), "reserve": die or null (optional)}."""
    if not isinstance(data, dict) or "pyramid" not in data:
        raise InvalidStateError("an observation is a JSON object with a 'pyramid' (and optional 'quarry', 'reserve')")
    unknown = set(data) - {"pyramid", "quarry", "reserve"}
    if unknown:
        raise InvalidStateError(f"unknown observation field(s) {sorted(unknown)}")
    pyramid = from_jsonable(dict[tuple[int, int], Die], data["pyramid"], "$.pyramid")
    quarry = from_jsonable(dict[tuple[int, int, int], Die], data["quarry"], "$.quarry") if "quarry" in data else None
    reserve = from_jsonable(Die | None, data.get("reserve"), "$.reserve")
    return Observation(pyramid, quarry, reserve, "reserve" in data)


def _simulate(args: argparse.Namespace) -> int:
    from engine.simulate import play

    if args.games < 1:
        raise InvalidActionError(f"--games must be at least 1, got {args.games}")
    names = ["ana", "ben", "cleo", "dan"][: args.players]
    totals: list[int] = []
    tokens: list[int] = []
    for i in range(args.games):
        final = play(_GAME, names, args.seed + i, options=rule_options(args.option), keep_states=False).final
        for p, s in _GAME.score(final).players.items():
            totals.append(s.total)
            tokens.append(sum(v for k, v in s.breakdown.items() if k.startswith("level")) // 5)
            assert len(final.player(p).pyramid) == pyr.FULL
    print(f"{args.games} random games of {args.players} players from seed {args.seed}")
    print(f"score: mean {statistics.mean(totals):.1f}, median {statistics.median(totals)}, max {max(totals)}")
    print(f"objective tokens met: mean {statistics.mean(tokens):.2f} of 5")
    return 0


def _perft(args: argparse.Namespace) -> int:
    state = _GAME.check_state(_read_state(args.state))
    for depth in range(1, args.depth + 1):
        print(f"depth {depth}: {perft(state, depth)}")
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "pyradice", help="Pyradice rules: legal actions, scores, observations, simulation",
        description="The Pyradice rules engine on JSON state files ('-' reads stdin).",
    )
    sub = parser.add_subparsers(dest="pyradice_command", metavar="ACTION", required=True)

    p = sub.add_parser("new", help="a random setup (quarry, tokens, cards) as JSON")
    p.add_argument("--players", nargs="+", default=["ana", "ben"], help="2 to 4 names, in seat order")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="peak=, first_tie=")
    p.add_argument("--out", help="write here instead of stdout")
    p.set_defaults(func=_new)

    for name, func, text in (
        ("status", _status, "phase, whose turn, legal slots, objectives, defects (exit 1 if any)"),
        ("legal", _legal, "every legal action now, one per line"),
        ("score", _score, "every player's score with its breakdown"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("--state", required=True, help="state JSON file")
        p.set_defaults(func=func)

    p = sub.add_parser("apply", help="apply actions (text as 'legal' prints them); print the new state")
    p.add_argument("--state", required=True)
    p.add_argument("actions", nargs="+", metavar="ACTION")
    p.add_argument("--out")
    p.set_defaults(func=_apply)

    p = sub.add_parser("explain", help="which legal turn explains an observed pyramid (and quarry)")
    p.add_argument("--state", required=True, help="the state before the turn")
    p.add_argument("--seen", required=True, help="observation JSON: pyramid, optional quarry and reserve")
    p.add_argument("--partial", action="store_true", help="the turn may still be under way")
    p.set_defaults(func=_explain)

    p = sub.add_parser("simulate", help="random games from a seed; prints score figures")
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    p.set_defaults(func=_simulate)

    p = sub.add_parser("perft", help="count action sequences from a state to each depth")
    p.add_argument("--state", required=True)
    p.add_argument("--depth", type=int, default=2)
    p.set_defaults(func=_perft)
