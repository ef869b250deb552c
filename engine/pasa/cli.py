"""``companion pasa ...``: score dice, list valid entries, ask the advisor, simulate, keep score at the table.

Sub-commands: ``score``, ``valid``, ``advise``, ``ev``, ``simulate`` and ``play`` (a terminal scorekeeper for
a whole game, offline entry or online dice mode). Bad input raises ValueError subclasses, which
:mod:`device.cli` prints as one line on stderr with exit status 2; inside ``play`` a refused line is
explained and asked again, since a game in progress must not be lost to a typo.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from engine.errors import InvalidActionError
from engine.pasa.game import (
    Choose,
    Enter,
    PasaAction,
    PasaGame,
    PasaState,
    Reroll,
    Roll,
    parse_action,
)
from engine.pasa.scoring import (
    CATEGORIES,
    DEFAULT_RULE,
    RULES,
    TITLES,
    check_category,
    check_dice,
    check_rule,
    max_total,
    score,
    valid_scores,
)

_RULE_HELP = f"Paša rule: {', '.join(RULES)} (default {DEFAULT_RULE}; see RULES.md 4.3)"


def _faces(words: Sequence[str], what: str = "dice") -> list[int]:
    """Integers from command-line words; '123456' counts as six dice. Non-numbers raise InvalidActionError."""
    if len(words) == 1 and words[0].isdigit() and len(words[0]) > 1:
        words = list(words[0])
    out = []
    for w in words:
        for part in filter(None, re.split(r"[\s,]+", w)):
            try:
                out.append(int(part))
            except ValueError:
                raise InvalidActionError(f"{what}: {part!r} is not a die face 1..6") from None
    return out


def _cmd_score(args: argparse.Namespace) -> int:
    print(score(args.category, check_dice(_faces(args.dice)), check_rule(args.rule)))
    return 0


def _cmd_valid(args: argparse.Namespace) -> int:
    print(" ".join(map(str, valid_scores(args.category, check_rule(args.rule)))))
    return 0


def _parse_used(text: str) -> frozenset[str]:
    names = [w for w in re.split(r"[\s,]+", text.strip()) if w]
    used = [check_category(n) for n in names]
    if len(set(used)) != len(used):
        raise InvalidActionError(f"--used {text!r} names a category twice")
    return frozenset(used)


def _cmd_advise(args: argparse.Namespace) -> int:
    from engine.pasa.advice import get_advisor

    rule = check_rule(args.rule)
    used = _parse_used(args.used)
    dice = check_dice(_faces(args.dice))
    advisor = get_advisor(rule)
    result: dict[str, Any] = {"rule": rule, "used": [c for c in CATEGORIES if c in used], "dice": list(dice)}
    result["scores"] = {c: score(c, dice, rule) for c in CATEGORIES if c not in used}
    if args.category is None:
        if args.rolls_left is not None:
            raise InvalidActionError("--rolls-left needs --category (holds are ranked once a category is chosen)")
        ranked = advisor.rank_categories(used, dice)
        result["categories"] = [{"category": c, "expected_rest": v} for c, v in ranked]
        result["best"] = f"choose {ranked[0][0]}"
    else:
        category = check_category(args.category)
        rolls_left = 2 if args.rolls_left is None else args.rolls_left
        holds = advisor.rank_holds(used, category, dice, rolls_left)
        result.update(category=category, rolls_left=rolls_left)
        result["holds"] = [{"keep": list(k), "stop": len(k) == 6, "expected_rest": v} for k, v in holds]
        best = holds[0][0]
        result["best"] = "stop" if len(best) == 6 else f"reroll keep {' '.join(map(str, best)) or '-'}"
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
        return 0
    print(f"dice {' '.join(map(str, dice))}, rule {rule}, used: {', '.join(result['used']) or 'none'}")
    if args.category is None:
        print("category   now  expected rest of game")
        for row in result["categories"]:
            c = row["category"]
            print(f"{TITLES[c]:<9} {result['scores'][c]:>4}  {row['expected_rest']:10.4f}")
    else:
        print(f"category {TITLES[result['category']]}, {result['rolls_left']} re-roll(s) left")
        print("hold                 expected rest of game")
        for row in result["holds"][: args.top]:
            label = "stop (keep all)" if row["stop"] else " ".join(map(str, row["keep"])) or "- (re-roll all)"
            print(f"{label:<20} {row['expected_rest']:10.4f}")
        if len(result["holds"]) > args.top:
            print(f"... {len(result['holds']) - args.top} more (--top N or --json for all)")
    print(f"best: {result['best']}")
    return 0


def _cmd_ev(args: argparse.Namespace) -> int:
    from engine.pasa.advice import get_advisor

    if args.all:
        for rule in RULES:
            print(f"{rule:<15} {get_advisor(rule).expected_total():.4f}")
    else:
        print(f"{get_advisor(check_rule(args.rule)).expected_total():.4f}")
    return 0


def _cmd_simulate(args: argparse.Namespace) -> int:
    from engine.pasa.advice import POLICIES, get_advisor, simulate

    rule = check_rule(args.rule)
    if args.games < 2:
        raise InvalidActionError(f"--games must be at least 2 (for a standard error), got {args.games}")
    policies = POLICIES if args.policy == "both" else (args.policy,)
    advisor = get_advisor(rule)
    how = "through the game engine" if args.engine else "vectorised"
    print(f"rule {rule}: {args.games} seeded one-player games per policy (seed {args.seed}, {how})")
    means: dict[str, tuple[float, float]] = {}
    for policy in policies:
        if args.engine:
            totals = _engine_games(rule, args.games, args.seed, policy)
        else:
            totals = [float(x) for x in simulate(advisor, args.games, args.seed, policy)]
        mean = sum(totals) / len(totals)
        sd = math.sqrt(sum((x - mean) ** 2 for x in totals) / (len(totals) - 1))
        se = sd / math.sqrt(len(totals))
        exact = advisor.expected_total() if policy == "optimal" else advisor.greedy_expected_total()
        means[policy] = (mean, se)
        print(
            f"{policy:<8} mean {mean:8.4f} ± {se:.4f} (SE, sd {sd:.2f}); exact expectation {exact:.4f}; "
            f"difference {(mean - exact) / se:+.2f} SE"
        )
    if len(means) == 2:
        (m1, s1), (m2, s2) = means["optimal"], means["greedy"]
        print(f"optimal - greedy: {m1 - m2:.4f} ± {math.hypot(s1, s2):.4f} points a game")
    return 0


def _engine_games(rule: str, games: int, seed: int, policy: str) -> list[float]:
    """Totals of one-player games played action by action through :class:`PasaGame`."""
    import random

    from engine.pasa.advice import get_advisor
    from engine.simulate import play

    game = PasaGame()
    advisor = get_advisor(rule)
    chooser = advisor.policy if policy == "optimal" else advisor.greedy_policy
    from tqdm import tqdm

    rng = random.Random(seed)
    out = []
    # A progress bar on stderr while it is a terminal: thousands of games through the engine take a while.
    for _ in tqdm(range(games), desc=f"{policy} games", unit=" games", file=sys.stderr, disable=None, leave=False):
        final = play(game, ["solo"], rng.randrange(2**32), options={"pasa": rule}, policy=chooser, keep_states=False)
        out.append(float(game.score(final.final).players["solo"].total))
    return out


# --- the terminal scorekeeper ---------------------------------------------------------------------

PLAY_HELP = """\
commands: sheet (show the score sheet), undo (take back the last step), help, quit
offline:  CATEGORY POINTS       e.g. 'twos 4' (only scores some roll can give are accepted)
online:   D D D D D D           the six dice on the table after a roll, e.g. '4 4 4 2 6 6' or '444266'
          CATEGORY              right after roll 1: this turn's category (binding)
          keep D D ... | keep - which dice to hold for the next roll (then type the dice on the table,
                                or only the re-rolled ones); 'stop' scores the dice in the category
any action text also works: roll ..., choose ..., reroll keep ..., stop, enter CATEGORY POINTS"""


def interpret(line: str, state: PasaState) -> PasaAction:
    """Turn one line typed at the table into an action for ``state`` (shorthands as in :data:`PLAY_HELP`)."""
    text = line.strip().lower()
    words = [w for w in re.split(r"[\s,]+", text) if w]
    if not words:
        raise InvalidActionError("empty line; type help for what to enter")
    head = words[0]
    if head in ("roll", "choose", "reroll", "stop", "enter"):
        return parse_action(text)
    if head == "keep":
        return Reroll(tuple(_faces(words[1:], "keep"))) if words[1:] != ["-"] else Reroll(())
    if head[0].isdigit():
        faces = _faces(words)
        if state.phase == "reroll" and state.keep is not None and len(faces) == 6 - len(state.keep):
            faces = [*state.keep, *faces]  # only the re-rolled dice were typed
        return Roll(tuple(faces))
    if len(words) == 2:
        try:
            points = int(words[1])
        except ValueError:
            raise InvalidActionError(f"{line.strip()!r}: points {words[1]!r} are not a whole number") from None
        return Enter(check_category(head), points)
    if len(words) == 1:
        return Choose(check_category(head))
    raise InvalidActionError(f"{line.strip()!r} means nothing here; type help")


def sheet_text(game: PasaGame, state: PasaState) -> str:
    """The score sheet: categories down, players across, totals and the crown (*) for the leaders."""
    width = max(8, *(len(p) for p in state.players))
    lines = [f"{'':<9} " + " ".join(f"{p:>{width}}" for p in state.players)]
    for c in CATEGORIES:
        cells = [state.sheets[p].get(c) for p in state.players]
        lines.append(f"{TITLES[c]:<9} " + " ".join(f"{'' if v is None else v:>{width}}" for v in cells))
    totals = game.score(state).totals()
    lines.append(f"{'total':<9} " + " ".join(f"{totals[p]:>{width}}" for p in state.players))
    status = game.status(state)
    if status.finished:
        crown = " and ".join(status.winners)
        lines.append(f"winner{'s' if len(status.winners) > 1 else ''}: {crown} (*) with {max(totals.values())}")
    return "\n".join(lines)


def _prompt(state: PasaState, mode: str) -> str:
    level = len(state.sheets[state.player]) + 1
    who = f"{state.player} (turn {level}/9)"
    phase = state.phase
    if phase == "roll":
        return f"{who} category and points: " if mode == "offline" else f"{who} roll 1, dice: "
    if phase == "choose":
        return f"{who} category for this turn: "
    if phase == "hold":
        return f"{who} [{state.category}] keep D.. / stop / dice after a re-roll: "
    if phase == "reroll":
        kept = " ".join(map(str, state.keep or ())) or "nothing"
        return f"{who} [{state.category}] keeping {kept}, dice after roll {state.rolls + 1}: "
    return f"{who} [{state.category}] 3 rolls made, stop: "


def _report(state: PasaState, before: PasaState, mode: str, write: Callable[[str], None]) -> None:
    """What changed, with every category's score for the dice and the advice in online mode."""
    if state.rolls == 0:  # a turn ended
        player = before.player
        cat = next(c for c in state.sheets[player] if c not in before.sheets[player])
        write(f"  {player}: {TITLES[cat]} = {state.sheets[player][cat]}")
        return
    if mode != "online" or state.phase not in ("choose", "hold", "stop"):
        return
    from engine.pasa.advice import get_advisor

    advice = get_advisor(state.rule).advise(state)
    if state.category is None:  # roll 1: what the dice are worth in every open category
        scores = "  ".join(f"{TITLES[c]} {v}" for c, v in advice["scores"].items())
    else:
        scores = f"{TITLES[state.category]} {advice['scores'][state.category]}"
    write(f"  dice {' '.join(map(str, state.dice))}: {scores}")
    if state.phase == "choose":
        top = ", ".join(f"{c['category']} {c['expected_rest']:.1f}" for c in advice["categories"][:3])
        write(f"  advice: {advice['best']} (expected rest of game: {top})")
    elif state.phase == "hold":
        write(f"  advice: {advice['best']} (expected rest of game {advice['expected_rest']:.1f})")


def play_loop(
    players: Sequence[str], rule: str, mode: str, *, read: Callable[[str], str] = input, out: TextIO | None = None
) -> int:
    """Run a whole game at the terminal. Returns 0 when the game was finished, 1 if abandoned."""
    stream = out or sys.stdout

    def write(text: str) -> None:
        print(text, file=stream, flush=True)

    game = PasaGame()
    state = game.initial_state(players, {"pasa": check_rule(rule)})
    history: list[PasaState] = []
    write(f"Paša-řada-pyramida, {mode} mode, Paša rule {rule} (max {max_total(rule)}). Type help for help.")
    while not state.finished:
        try:
            line = read(_prompt(state, mode))
        except EOFError:
            write("\ninput ended before the game did; the sheet so far:")
            write(sheet_text(game, state))
            return 1
        command = line.strip().lower()
        if command in ("help", "?"):
            write(PLAY_HELP)
            continue
        if command == "sheet":
            write(sheet_text(game, state))
            continue
        if command == "quit":
            write(sheet_text(game, state))
            return 1
        if command == "undo":
            if history:
                state = history.pop()
                write("  undone")
            else:
                write("  nothing to undo")
            continue
        try:
            action = interpret(line, state)
            new = game.apply(state, action)
        except ValueError as exc:
            write(f"  refused: {exc}")
            continue
        history.append(state)
        _report(new, state, mode, write)
        state = new
    write(sheet_text(game, state))
    return 0


def _cmd_play(args: argparse.Namespace) -> int:
    PasaGame().check_players(args.players)
    return play_loop(args.players, check_rule(args.rule), args.mode)


def register(subparsers: Any) -> None:
    """Add ``companion pasa`` and its sub-commands."""
    pasa = subparsers.add_parser(
        "pasa",
        help="Paša-řada-pyramida: scores, valid entries, optimal advice, simulation, a terminal scorekeeper",
        description="Paša-řada-pyramida (6 dice, 9 categories, up to 3 rolls a turn). " + _RULE_HELP,
    )
    sub = pasa.add_subparsers(dest="pasa_command", metavar="SUBCOMMAND", required=True)

    def rule_arg(p: argparse.ArgumentParser) -> None:
        p.add_argument("--rule", default=DEFAULT_RULE, help=_RULE_HELP)

    p = sub.add_parser("score", help="points of six dice in a category")
    p.add_argument("category", help=f"one of {', '.join(CATEGORIES)}")
    p.add_argument("dice", nargs="*", help="six faces 1..6")
    rule_arg(p)
    p.set_defaults(func=_cmd_score)

    p = sub.add_parser("valid", help="every score a category can hold (the offline validator)")
    p.add_argument("category", help=f"one of {', '.join(CATEGORIES)}")
    rule_arg(p)
    p.set_defaults(func=_cmd_valid)

    p = sub.add_parser(
        "advise",
        help="rank categories (after roll 1) or holds (once a category is chosen) by expected value",
        description="Without --category: every open category ranked for the dice of roll 1. With --category: "
        "every hold ranked, keeping all six = stop. Values are expected points still to come (this turn "
        "included) under optimal play.",
    )
    p.add_argument("--used", default="", help="categories already on the sheet, comma-separated")
    p.add_argument("--dice", nargs="+", required=True, help="the six dice on the table")
    p.add_argument("--category", help="this turn's chosen category")
    p.add_argument("--rolls-left", type=int, help="re-rolls still allowed: 2 after roll 1 (default), 1, 0")
    p.add_argument("--top", type=int, default=10, help="holds shown in text output (default 10)")
    p.add_argument("--json", action="store_true", help="print JSON")
    rule_arg(p)
    p.set_defaults(func=_cmd_advise)

    p = sub.add_parser("ev", help="expected total of optimal play from an empty sheet (4 decimals)")
    rule_arg(p)
    p.add_argument("--all", action="store_true", help="print it for every Paša rule")
    p.set_defaults(func=_cmd_ev)

    p = sub.add_parser("simulate", help="seeded games by the optimal advisor and a greedy player, vs the exact EV")
    p.add_argument("--games", type=int, default=10_000, help="games per policy (default 10000)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--policy", choices=("optimal", "greedy", "both"), default="both")
    p.add_argument("--engine", action="store_true", help="play action by action through the game engine (slower)")
    rule_arg(p)
    p.set_defaults(func=_cmd_simulate)

    p = sub.add_parser(
        "play",
        help="terminal scorekeeper for a whole game",
        description="Offline mode: type each player's category and score; impossible scores are refused with "
        "the possible ones. Online mode: type the dice after each roll and get every category's score and "
        "the optimal advice.\n\n" + PLAY_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--players", nargs="+", required=True, help="1 to 8 names in seat order")
    p.add_argument("--mode", choices=("offline", "online"), default="offline")
    rule_arg(p)
    p.set_defaults(func=_cmd_play)
