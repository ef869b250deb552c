"""``companion game GAME ...`` and ``companion play GAME``: one command line for every game, over the contract.

Everything here goes through :class:`engine.game.Game` (found by name with :func:`engine.game.find_game`), so
the four games have the same commands, the same options and the same defaults::

    companion game GAME new [--players NAME... | N] [--seed S] [--option NAME=VALUE]... [--state FILE]
    companion game GAME status [--state FILE]          whose turn, what is awaited, the board, scores
    companion game GAME legal [--state FILE]           legal actions with their words, or the chance awaited
    companion game GAME apply ACTION... [--state FILE] [--out FILE]
    companion game GAME score [--state FILE]           every player's score with its breakdown
    companion game GAME simulate [--games N] [--seed S] [--players NAME... | N] [--option NAME=VALUE]...
    companion game GAME perft [--depth N] [--state FILE]
    companion game GAME hint [--seed S] [--budget SECONDS] [--playouts N] [--state FILE]
                                                       the decision now's options ranked by seeded playouts
    companion game GAME help                           the action grammar and the rule options
    companion play GAME [--players ...] [--seed S] [--option ...] [--state FILE] [--resume | --new]

The state lives in a JSON file, ``GAME.json`` in the current folder unless ``--state FILE`` says otherwise
(``-`` reads standard input; for ``new`` and ``apply --out``, ``-`` prints the state JSON instead of the view).
Output is text for people; ``--json`` prints one JSON object for machines. Bad input raises ValueError (or
OSError), which :mod:`device.cli` prints as one line on stderr with exit status 2.

``play`` is a terminal game for any of the four: it shows the table and the legal actions (numbered), reads an
action's text, a number, or the outcome of a roll or draw as text, and saves the state to its file after every
step, so ``--resume`` continues a game that was left.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from engine.cli_support import rule_options
from engine.errors import InvalidActionError, InvalidStateError
from engine.game import GAME_MODULES, Game, LegalAction, find_game
from engine.perft import perft, steps
from engine.simulate import play as play_out
from engine.simulate import uniform_policy

Out = Callable[[str], None]


# --- state files ------------------------------------------------------------------------------------------


def default_state_file(game: Game[Any, Any]) -> str:
    return f"{game.name}.json"


def _state_path(game: Game[Any, Any], args: argparse.Namespace) -> str:
    return str(args.state) if args.state else default_state_file(game)


def load_state(game: Game[Any, Any], path: str) -> Any:
    """The state in ``path`` (``-``: standard input); a missing file says how to start a game."""
    if path == "-":
        text = sys.stdin.read()
    else:
        file = Path(path)
        if not file.exists():
            raise InvalidStateError(f"no state file {path!r}; start a game with: companion game {game.name} new "
                                    f"--state {path}")
        text = file.read_text(encoding="utf-8")
    try:
        return game.state_from_json(text)
    except ValueError as exc:
        raise InvalidStateError(f"{path}: {exc}") from None


def save_state(game: Game[Any, Any], state: Any, path: str) -> None:
    Path(path).write_text(game.state_to_json(state) + "\n", encoding="utf-8")


def players_from(game: Game[Any, Any], given: Sequence[str] | None) -> tuple[str, ...]:
    """``--players``: names in seat order, or one number of seats (default names), or the game's default."""
    if not given:
        return game.default_players()
    if len(given) == 1 and given[0].isdigit():
        return game.default_players(int(given[0]))
    return game.check_players(given)


# --- what a state looks like ------------------------------------------------------------------------------


def _chance_json(game: Game[Any, Any], state: Any) -> dict[str, str] | None:
    prompt = game.chance_prompt(state)
    return None if prompt is None else {"what": prompt.what, "example": prompt.example, "group": prompt.group}


def score_json(game: Game[Any, Any], state: Any) -> dict[str, Any]:
    return {name: {"total": s.total, "breakdown": dict(s.breakdown)} for name, s in game.score(state).players.items()}


def status_json(game: Game[Any, Any], state: Any) -> dict[str, Any]:
    """What ``status --json`` prints: the status, the chance awaited, the scores and how many actions are legal."""
    st = game.status(state)
    out: dict[str, Any] = {
        "game": game.name,
        "to_move": st.to_move,
        "phase": st.phase,
        "awaiting": st.awaiting,
        "finished": st.finished,
        "winners": list(st.winners),
        "defects": list(st.defects),
    }
    if st.valid:
        out["chance"] = _chance_json(game, state)
        out["legal"] = len(game.legal_actions(state))
        out["scores"] = score_json(game, state)
    return out


def awaited_text(game: Game[Any, Any], state: Any) -> str:
    st = game.status(state)
    if st.finished:
        won = " and ".join(st.winners) or "nobody"
        return f"the game is over; winner{'s' if len(st.winners) > 1 else ''}: {won}"
    if st.awaiting == "chance":
        prompt = game.chance_prompt(state)
        if prompt is None:
            return "chance is awaited"
        return f"chance is awaited: {prompt.what} (enter e.g. '{prompt.example}')"
    return f"{st.to_move or 'the table'} to decide ({len(game.legal_actions(state))} legal actions)"


def view_text(game: Game[Any, Any], state: Any) -> str:
    """The readable view: the phase and whose turn, what is awaited, the board in text, the scores."""
    st = game.status(state)
    lines = [f"{game.title}: {st.phase}; to move: {st.to_move or '-'}"]
    if st.defects:
        lines.extend(f"defect: {d}" for d in st.defects)
        return "\n".join(lines)
    lines.append(awaited_text(game, state))
    board = game.board_text(state)
    if board:
        lines.append(board)
    totals = game.score(state).totals()
    lines.append("score: " + ", ".join(f"{name} {total}" for name, total in totals.items()))
    return "\n".join(lines)


def legal_text(game: Game[Any, Any], state: Any, listed: Sequence[LegalAction] | None = None,
               *, numbered: bool = False, limit: int | None = None) -> str:
    """The legal actions grouped, ``text   label`` each; or what chance is awaited; or that the game is over."""
    st = game.status(state)
    if st.finished or st.awaiting != "decision":
        return awaited_text(game, state)
    actions = list(listed if listed is not None else game.legal(state))
    width = min(28, max((len(a.text) for a in actions), default=0))
    lines = [f"{st.to_move or 'the table'} to decide: {len(actions)} legal actions"]
    shown = actions if limit is None else actions[:limit]
    group = None
    for i, action in enumerate(shown, start=1):
        if action.group != group:
            group = action.group
            lines.append(f"{group}:")
        number = f"{i:>3}. " if numbered else "  "
        lines.append(f"{number}{action.text:<{width}}  {action.label}")
    if len(shown) < len(actions):
        lines.append(f"  ... and {len(actions) - len(shown)} more ('legal' lists them all)")
    return "\n".join(lines)


def score_text(game: Game[Any, Any], state: Any) -> str:
    lines = []
    for name, score in game.score(state).players.items():
        lines.append(f"{name}: {score.total}")
        lines.extend(f"  {game.part_title(part)}: {points}" for part, points in score.breakdown.items())
    st = game.status(state)
    if st.finished:
        lines.append(f"winner{'s' if len(st.winners) > 1 else ''}: {' and '.join(st.winners) or 'nobody'}")
    return "\n".join(lines)


def help_text(game: Game[Any, Any]) -> str:
    """The game, its players, its action grammar, the groups of actions and the rule options with defaults."""
    players = (f"{game.min_players} player" if game.min_players == game.max_players
               else f"{game.min_players} to {game.max_players} players")
    lines = [f"{game.title} ({game.name}): {players}; default players: {' '.join(game.default_players())}", "",
             "actions (what 'apply' and 'play' read; 'legal' lists those legal now):"]
    lines.extend(f"  {form}" for form in game.action_grammar)
    if game.action_groups:
        lines.append(f"groups of actions: {', '.join(game.action_groups)}")
    lines.append("")
    if game.options:
        lines.append("rule options (--option NAME=VALUE):")
        for option in game.options:
            lines.append(f"  {option.name}: one of {', '.join(option.choices)}; default {option.default}")
            lines.append(f"      {option.doc}")
    else:
        lines.append("rule options: none")
    lines.append("")
    lines.append(f"state file: --state FILE (default {default_state_file(game)}; '-' reads standard input)")
    return "\n".join(lines)


# --- the subcommands --------------------------------------------------------------------------------------


def _emit(args: argparse.Namespace, game: Game[Any, Any], state: Any) -> None:
    print(json.dumps(status_json(game, state), ensure_ascii=False) if args.json else view_text(game, state))


def _cmd_new(args: argparse.Namespace) -> int:
    game = find_game(args.game)
    state = game.initial_state(players_from(game, args.players), rule_options(args.option), seed=args.seed)
    path = _state_path(game, args)
    if path == "-":
        print(game.state_to_json(state))
        return 0
    save_state(game, state, path)
    _emit(args, game, state)
    return 0


def _cmd_status(args: argparse.Namespace) -> int:
    game = find_game(args.game)
    state = load_state(game, _state_path(game, args))
    _emit(args, game, state)
    return 1 if game.status(state).defects else 0


def _cmd_legal(args: argparse.Namespace) -> int:
    game = find_game(args.game)
    state = game.check_state(load_state(game, _state_path(game, args)))
    if args.json:
        st = game.status(state)
        print(json.dumps({
            "to_move": st.to_move, "awaiting": st.awaiting, "finished": st.finished,
            "actions": [{"text": a.text, "label": a.label, "group": a.group} for a in game.legal(state)],
            "chance": _chance_json(game, state),
        }, ensure_ascii=False))
    else:
        print(legal_text(game, state))
    return 0


def _cmd_apply(args: argparse.Namespace) -> int:
    game = find_game(args.game)
    path = _state_path(game, args)
    state = game.check_state(load_state(game, path))
    for text in args.actions:
        state = game.apply(state, game.parse_action(text, state))
    out = args.out or path
    if out == "-":
        print(game.state_to_json(state))
        return 0
    save_state(game, state, out)
    _emit(args, game, state)
    return 0


def _cmd_score(args: argparse.Namespace) -> int:
    game = find_game(args.game)
    state = game.check_state(load_state(game, _state_path(game, args)))
    if args.json:
        st = game.status(state)
        print(json.dumps({"scores": score_json(game, state), "finished": st.finished, "winners": list(st.winners)},
                         ensure_ascii=False))
    else:
        print(score_text(game, state))
    return 0


def _progress(total: int, what: str) -> Any:
    """A tqdm bar on stderr, shown only when stderr is a terminal."""
    from tqdm import tqdm

    return tqdm(total=total, desc=what, unit=" " + what.split()[-1], file=sys.stderr, disable=None, leave=False)


def _cmd_simulate(args: argparse.Namespace) -> int:
    game = find_game(args.game)
    if args.games < 1:
        raise InvalidActionError(f"--games must be at least 1, got {args.games}")
    players = players_from(game, args.players)
    options = game.resolve_options(rule_options(args.option))
    totals: dict[str, list[int]] = {}
    wins: dict[str, float] = {}
    actions: list[int] = []
    start = time.perf_counter()
    with _progress(args.games, "games") as bar:
        for k in range(args.games):
            playout = play_out(game, players, args.seed + k, options=options, keep_states=False,
                               policy=game.playout_policy() or uniform_policy)
            final = playout.final
            for name, total in game.score(final).totals().items():
                totals.setdefault(name, []).append(total)
            winners = game.status(final).winners
            for name in winners:
                wins[name] = wins.get(name, 0.0) + 1 / len(winners)
            actions.append(len(playout.actions))
            bar.update(1)
    took = time.perf_counter() - start
    summary: dict[str, Any] = {
        "game": game.name, "games": args.games, "seeds": [args.seed, args.seed + args.games - 1],
        "players": list(players), "options": options,
        "mean_actions": statistics.mean(actions),
        "scores": {name: {"mean": statistics.mean(v), "min": min(v), "max": max(v), "wins": wins.get(name, 0.0)}
                   for name, v in totals.items()},
        "games_per_second": args.games / took if took > 0 else None,
    }
    if args.json:
        print(json.dumps(summary, ensure_ascii=False))
        return 0
    print(f"{args.games} random game{'s' if args.games > 1 else ''} of {game.title}, {', '.join(players)}, "
          f"seeds {args.seed}..{args.seed + args.games - 1}; {summary['mean_actions']:.1f} actions a game")
    for name, row in summary["scores"].items():
        print(f"  {name}: mean score {row['mean']:.1f} (min {row['min']}, max {row['max']}), wins {row['wins']:g}")
    print(f"  {args.games / took:.1f} games/s")
    return 0


def _cmd_perft(args: argparse.Namespace) -> int:
    game = find_game(args.game)
    if args.depth < 1:
        raise InvalidActionError(f"--depth must be at least 1, got {args.depth}")
    state = game.check_state(load_state(game, _state_path(game, args)))
    counts: dict[int, int] = {}
    first = steps(game, state)
    for depth in range(1, args.depth + 1):
        with _progress(len(first or ()), f"depth {depth} steps") as bar:
            counts[depth] = perft(game, state, depth, progress=bar.update)
        if not args.json:
            print(f"depth {depth}: {counts[depth]}", flush=True)
    if args.json:
        print(json.dumps({"counts": {str(d): n for d, n in counts.items()},
                          "chance_listed": first is not None}))
    elif first is None:
        print("(chance is awaited and its outcomes are too many to list: counted as one)")
    return 0


def _cmd_hint(args: argparse.Namespace) -> int:
    """The game's hint for the decision now (:meth:`engine.game.Game.advise`); exit 1 when there is none."""
    game = find_game(args.game)
    if args.budget <= 0:
        raise InvalidActionError(f"--budget must be a positive number of seconds, got {args.budget}")
    if args.playouts is not None and args.playouts < 1:
        raise InvalidActionError(f"--playouts must be at least 1, got {args.playouts}")
    state = game.check_state(load_state(game, _state_path(game, args)))
    advice = game.advise(state, seed=args.seed, budget_s=args.budget, playouts=args.playouts)
    if advice is None:
        st = game.status(state)
        why = ("the game is over" if st.finished else "chance is awaited" if st.awaiting == "chance"
               else f"{game.title} gives no hint for this step ({st.phase})")
        if args.json:
            print(json.dumps({"hint": None, "reason": f"no hint now: {why}"}, ensure_ascii=False))
        else:
            print(f"no hint now: {why}")
        return 1
    print(json.dumps({"hint": advice.to_json()}, ensure_ascii=False) if args.json else advice.text())
    return 0


def _cmd_help(args: argparse.Namespace) -> int:
    print(help_text(find_game(args.game)))
    return 0


# --- companion play GAME ----------------------------------------------------------------------------------

PLAY_HELP = """\
type an action as 'legal' shows it (or its number), or the outcome of a roll or draw as text; also:
  legal   list every legal action        board   show the table again      score   the scores
  random  let the computer roll or draw  undo    take back the last step   grammar the action forms
  help    this text                      quit    stop (the game is saved; --resume continues it)"""


def play_loop(game: Game[Any, Any], state: Any, path: str | None, *, seed: int = 0,
              read: Callable[[str], str] = input, out: TextIO | None = None) -> int:
    """Play at the terminal from ``state``, saving to ``path`` after every step. 0 once the game is over,
    1 when the players quit or the input ends first."""
    stream = out or sys.stdout
    rng = random.Random(seed)

    def write(text: str) -> None:
        print(text, file=stream, flush=True)

    history: list[Any] = []
    write(f"{game.title}. Type help for help.")
    shown = _show(game, state, write, view=True)
    while not game.status(state).finished:
        try:
            line = read("> ")
        except EOFError:
            write("\ninput ended before the game did" + (f"; it is saved in {path}" if path else ""))
            return 1
        command = line.strip()
        low = command.lower()
        if not command:
            continue
        if low in ("help", "?"):
            write(PLAY_HELP)
            continue
        if low == "grammar":
            write("\n".join(game.action_grammar))
            continue
        if low == "quit":
            write("stopped" + (f"; the game is saved in {path} (companion play {game.name} --resume "
                              f"--state {path} continues it)" if path else ""))
            return 1
        if low == "board":
            write(view_text(game, state))
            continue
        if low == "score":
            write(score_text(game, state))
            continue
        if low in ("legal", "list"):
            write(legal_text(game, state, shown, numbered=True))
            continue
        if low == "undo":
            if history:
                state = history.pop()
                write("  undone")
                _save(game, state, path)
                shown = _show(game, state, write, view=True)
            else:
                write("  nothing to undo")
            continue
        try:
            if low == "random":
                if game.status(state).awaiting != "chance":
                    raise InvalidActionError("'random' rolls or draws; no chance is awaited now")
                action = game.random_chance(state, rng)
            elif command.isdigit():
                number = int(command)
                if not 1 <= number <= len(shown):
                    raise InvalidActionError(f"{command!r}: no legal action has that number (1 to {len(shown)})")
                action = game.parse_action(shown[number - 1].text, state)
            else:
                action = game.parse_action(command, state)
            words = game.describe(state, action).label
            new = game.apply(state, action)
        except ValueError as exc:
            write(f"  refused: {exc}")
            continue
        history.append(state)
        state = new
        _save(game, state, path)
        write(f"  {words}")
        # the whole table once a decision is due; between chance steps only what is awaited next
        shown = _show(game, state, write, view=game.status(state).awaiting != "chance")
    write(score_text(game, state))
    return 0


def _show(game: Game[Any, Any], state: Any, write: Out, *, view: bool) -> list[LegalAction]:
    """The table (``view``) and then the legal actions numbered, or what chance is awaited (which the view
    already says); returns the actions the numbers stand for."""
    if view:
        write(view_text(game, state))
    st = game.status(state)
    if st.finished or st.awaiting != "decision":
        if not view and not st.finished:
            write(awaited_text(game, state))
        return []
    listed = game.legal(state)
    write(legal_text(game, state, listed, numbered=True, limit=20))
    return listed


def _save(game: Game[Any, Any], state: Any, path: str | None) -> None:
    if path:
        save_state(game, state, path)


def _cmd_play(args: argparse.Namespace) -> int:
    game = find_game(args.game)
    path = _state_path(game, args)
    if path == "-":
        raise InvalidActionError("play saves the game to a file: give --state FILE, not '-'")
    if args.resume:
        if args.players or args.option or args.seed is not None:
            raise InvalidActionError("--resume continues the saved game: --players, --option and --seed do not apply")
        state = game.check_state(load_state(game, path))
    else:
        if Path(path).exists() and not args.new:
            raise InvalidActionError(f"{path} holds a saved game: --resume continues it, --new starts over")
        state = game.initial_state(players_from(game, args.players), rule_options(args.option), seed=args.seed)
        save_state(game, state, path)
    return play_loop(game, state, path, seed=args.seed or 0)


# --- registration -----------------------------------------------------------------------------------------


def _state_arg(p: argparse.ArgumentParser, game: Game[Any, Any]) -> None:
    p.add_argument("--state", metavar="FILE",
                   help=f"the game's state file (default {default_state_file(game)}; '-' reads standard input)")


def _json_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print one JSON object for machines")


def _setup_args(p: argparse.ArgumentParser, game: Game[Any, Any]) -> None:
    p.add_argument("--players", nargs="+", metavar="NAME",
                   help=f"{game.min_players} to {game.max_players} names in seat order, or a number of players "
                        f"(default: {' '.join(game.default_players())})")
    p.add_argument("--seed", type=int, help="seed of a random set-up (the same seed gives the same set-up)")
    options = "; ".join(f"{o.name}: {'|'.join(o.choices)} (default {o.default})" for o in game.options)
    p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                   help=f"a rule option, repeatable ({options or 'none'})")


#: The subcommands every game has, in the order ``--help`` lists them.
COMMANDS: tuple[str, ...] = ("new", "status", "legal", "apply", "score", "simulate", "perft", "hint", "help")


def add_game_commands(cmds: Any, game: Game[Any, Any], names: Sequence[str] = COMMANDS) -> None:
    """Add the subcommands ``names`` (of :data:`COMMANDS`) for ``game`` to the subparsers ``cmds``: for
    ``companion game GAME``, and for a game's own command where they stand for the same (``companion pyradice
    status`` is ``companion game pyradice status``)."""
    unknown = set(names) - set(COMMANDS)
    if unknown:
        raise ValueError(f"no such game subcommand(s): {sorted(unknown)}")

    def add(name: str, text: str) -> argparse.ArgumentParser | None:
        if name not in names:
            return None
        p: argparse.ArgumentParser = cmds.add_parser(name, help=text)
        p.set_defaults(game=game.name)
        return p

    if p := add("new", "start a game: write its state file and show it"):
        _setup_args(p, game)
        _state_arg(p, game)
        _json_arg(p)
        p.set_defaults(func=_cmd_new)
    for name, func, text in (
        ("status", _cmd_status, "whose turn, what is awaited, the board and the scores (exit 1 if defects)"),
        ("legal", _cmd_legal, "the legal actions with their words, or the chance awaited"),
    ):
        if p := add(name, text):
            _state_arg(p, game)
            _json_arg(p)
            p.set_defaults(func=func)
    if p := add("apply", "apply actions (as 'legal' prints them, or chance as text); save and show"):
        p.add_argument("actions", nargs="+", metavar="ACTION")
        _state_arg(p, game)
        p.add_argument("--out", metavar="FILE",
                       help="write the new state here (default: back to --state; '-' prints it)")
        _json_arg(p)
        p.set_defaults(func=_cmd_apply)
    if p := add("score", "every player's score with its breakdown"):
        _state_arg(p, game)
        _json_arg(p)
        p.set_defaults(func=_cmd_score)
    if p := add("simulate", "seeded random games; mean scores, wins, speed"):
        p.add_argument("--games", type=int, default=10, metavar="N", help="games to play (default 10)")
        p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the first game (default 0)")
        p.add_argument("--players", nargs="+", metavar="NAME",
                       help=f"names or a number of players (default: {' '.join(game.default_players())})")
        p.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                       help="a rule option, repeatable")
        _json_arg(p)
        p.set_defaults(func=_cmd_simulate)
    if p := add("perft", "count the step sequences from the state to each depth"):
        p.add_argument("--depth", type=int, default=2, metavar="N", help="deepest depth (default 2)")
        _state_arg(p, game)
        _json_arg(p)
        p.set_defaults(func=_cmd_perft)
    if p := add("hint", "the decision now's options ranked by expected margin from seeded playouts"):
        p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the playouts (default 0)")
        p.add_argument("--budget", type=float, default=0.3, metavar="SECONDS",
                       help="time for the playouts (default 0.3)")
        p.add_argument("--playouts", type=int, default=None, metavar="N",
                       help="exactly N playouts per option, whatever the time (the same answer on any machine)")
        _state_arg(p, game)
        _json_arg(p)
        p.set_defaults(func=_cmd_hint)
    if p := add("help", "the action grammar and the rule options with their choices and defaults"):
        p.set_defaults(func=_cmd_help)


def _add_game(sub: Any, game: Game[Any, Any]) -> None:
    top = sub.add_parser(
        game.name, help=game.title,
        description=f"{game.title} over the engine's game contract.\n\n{help_text(game)}",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    top.set_defaults(game=game.name)
    add_game_commands(top.add_subparsers(dest="game_command", metavar="SUBCOMMAND", required=True), game)


def register(subparsers: Any) -> None:
    """Add ``companion game GAME ...`` and ``companion play GAME``."""
    names = list(GAME_MODULES)
    game_parser = subparsers.add_parser(
        "game", help="any game by its rules: new, status, legal, apply, score, simulate, perft, help",
        description="One command line for every game: " + ", ".join(names) + ". "
        "'companion game GAME help' lists a game's actions and rule options.",
    )
    games = game_parser.add_subparsers(dest="game", metavar="GAME", required=True)
    for name in names:
        _add_game(games, find_game(name))

    play = subparsers.add_parser(
        "play", help="play any game at the terminal (undo; resume from its saved file)",
        description="A terminal game: the table as text, the legal actions numbered, chance entered as text "
        "(or 'random'). The state is saved to --state FILE after every step.\n\n" + PLAY_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    play.add_argument("game", choices=names, metavar="GAME", help=", ".join(names))
    play.add_argument("--players", nargs="+", metavar="NAME", help="names in seat order, or a number of players")
    play.add_argument("--seed", type=int, help="seed of a random set-up and of 'random' rolls")
    play.add_argument("--option", action="append", default=[], metavar="NAME=VALUE", help="a rule option, repeatable")
    play.add_argument("--state", metavar="FILE", help="where the game is saved (default GAME.json)")
    again = play.add_mutually_exclusive_group()
    again.add_argument("--resume", action="store_true", help="continue the game saved in --state FILE")
    again.add_argument("--new", action="store_true", help="start over even if --state FILE holds a game")
    play.set_defaults(func=_cmd_play)


__all__ = [
    "COMMANDS",
    "add_game_commands",
    "help_text",
    "legal_text",
    "load_state",
    "play_loop",
    "register",
    "status_json",
    "view_text",
]
