"""The ``companion dicetreasure`` commands: check a deck file, start and advance a game state, list legal spaces,
and play seeded random games.

    companion dicetreasure validate-deck FILE...                  every problem, card and field named; exit 2 if any
    companion dicetreasure new --players Ann Bob [--deck FILE] [--option NAME=VALUE] > state.json
    companion dicetreasure apply ACTION... --state FILE            as companion game dicetreasure apply
    companion dicetreasure spaces --state FILE [--die COLOUR:VALUE ...]
    companion dicetreasure simulate --players N --games N --seed S

``status``, ``legal``, ``apply``, ``score``, ``perft`` and ``help`` are those of ``companion game dicetreasure``
(:mod:`engine.cli`); ``new`` and ``simulate`` stay the game's own, since they take a deck file (and ``--check``).
Bad input (a broken deck, an inconsistent state, an illegal action) is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from engine.cli import add_game_commands
from engine.cli_support import read_state, rule_options
from engine.dice import Die
from engine.dicetreasure.cards import load_deck, validate_deck
from engine.dicetreasure.game import GAME, new_game
from engine.dicetreasure.placement import legal_spaces
from engine.dicetreasure.simulate import play_game
from engine.dicetreasure.state import DiceTreasureState, Phase
from engine.errors import InvalidActionError


def _read_state(path: str) -> DiceTreasureState:
    state: DiceTreasureState = read_state(GAME, path)
    return GAME.check_state(state)


def _validate(args: argparse.Namespace) -> int:
    status = 0
    for path in args.files:
        problems = validate_deck(path)
        if problems:
            status = 2
            print(f"{path}: {len(problems)} problem(s)")
            for problem in problems:
                print(f"  {problem}")
        else:
            deck = load_deck(path)
            label = "; a STAND-IN, not the real cards" if deck.stand_in else ""
            print(f"{path}: ok ({len(deck.motif_cards)} motif cards, {len(deck.bonus_cards)} leprechaun cards{label})")
    return status


def _new(args: argparse.Namespace) -> int:
    deck = load_deck(args.deck) if args.deck else None
    print(GAME.state_to_json(new_game(args.players, deck, rule_options(args.option))))
    return 0


def _spaces(args: argparse.Namespace) -> int:
    state = _read_state(args.state)
    if state.phase not in (Phase.TURN, Phase.SOLO_FILL):
        raise InvalidActionError(f"no die can be placed now: the game is in phase {state.phase.value!r}")
    if args.die:
        dice = [Die.parse(text) for text in args.die]
        for die in dice:
            if ":" not in str(die) or die.colour not in state.dice_colours:
                raise InvalidActionError(f"die {str(die)!r} is not COLOUR:VALUE with a colour of {state.dice_colours}")
    else:
        source = state.common if state.phase is Phase.SOLO_FILL else state.hand
        dice = list(dict.fromkeys([*source, *state.players[state.active].reserve]))
    for die in dice:
        spaces = legal_spaces(state, die)
        print(f"{die}: {' '.join(f'{c}#{s}' for c, s in spaces) if spaces else 'no legal space'}")
    return 0


def _simulate(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise InvalidActionError(f"--games must be at least 1, got {args.games}")
    options = rule_options(args.option)
    deck = load_deck(args.deck) if args.deck else None
    wins: dict[str, float] = {}
    actions = rounds = 0
    gold: list[int] = []
    start = time.perf_counter()
    for k in range(args.games):
        state, n = play_game(args.players, args.seed + k, deck=deck, options=options, check=args.check)
        actions += n
        rounds += state.round
        winners = GAME.status(state).winners
        for w in winners:
            wins[w] = wins.get(w, 0) + 1 / len(winners)
        gold.extend(p.gold for p in state.players)
    took = time.perf_counter() - start
    print(f"{args.games} game(s), {args.players} player(s), seeds {args.seed}..{args.seed + args.games - 1}")
    print(
        f"  mean actions {actions / args.games:.1f}, mean rounds {rounds / args.games:.2f}, "
        f"mean gold {sum(gold) / len(gold):.1f}"
    )
    print("  wins: " + (", ".join(f"{w} {n:g}" for w, n in sorted(wins.items())) or "none (solo goal missed)"))
    print(f"  {args.games / took:.1f} games/s")
    return 0


def register(subparsers: Any) -> None:
    """Add ``companion dicetreasure ...``."""
    top = subparsers.add_parser("dicetreasure", help="Dice Treasure: deck files, legal spaces, random games")
    sub = top.add_subparsers(dest="dicetreasure_command", metavar="COMMAND", required=True)
    add_game_commands(sub, GAME, ("status", "legal", "apply", "score", "perft", "help"))

    p = sub.add_parser("validate-deck", help="check deck files; list every problem (exit 2 if any)")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.set_defaults(func=_validate)

    p = sub.add_parser("new", help="print the JSON state of a new game")
    p.add_argument("--players", nargs="+", required=True, metavar="NAME", help="youngest first (they start)")
    p.add_argument("--deck", help="deck file (default: the stand-in sample deck)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="rule option")
    p.set_defaults(func=_new)

    p = sub.add_parser("spaces", help="every legal space for each die (default: the dice in hand and reserve)")
    p.add_argument("--state", required=True, metavar="FILE")
    p.add_argument("--die", action="append", default=[], metavar="COLOUR:VALUE")
    p.set_defaults(func=_spaces)

    p = sub.add_parser("simulate", help="play seeded random games and summarise them")
    p.add_argument("--players", type=int, default=2, choices=range(1, 5), metavar="N")
    p.add_argument("--games", type=int, default=10, metavar="N")
    p.add_argument("--seed", type=int, default=0, metavar="S")
    p.add_argument("--deck", help="deck file (default: the stand-in sample deck)")
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="rule option")
    p.add_argument("--check", action="store_true", help="check the invariants after every action")
    p.set_defaults(func=_simulate)


if __name__ == "__main__":  # pragma: no cover
    parser = argparse.ArgumentParser(prog="dicetreasure")
    register(parser.add_subparsers(dest="command", required=True))
    ns = parser.parse_args()
    sys.exit(ns.func(ns))
