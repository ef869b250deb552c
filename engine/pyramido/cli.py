"""``companion pyramido ...``: the Pyramido engine from the command line.

Pyramido's own subcommands:

* ``back --state FILE PILE BACK``: record the back seen on a pile's face-down top (e.g. ``2 r2-b0``), so
  that a reveal that contradicts it is refused as a misread; print the new state JSON;
* ``placements --state FILE [--player NAME] [--domino D]`` or ``--pyramid FILE``: every legal placement;
* ``areas --state FILE [--player NAME]`` or ``--pyramid FILE``: the top view and its areas;
* ``activate --state FILE [--player NAME] [--inventory GEMS] [--keep GEMS]``: the best activation.

``new``, ``status``, ``legal``, ``apply``, ``score``, ``simulate``, ``perft`` and ``help`` are those of
``companion game pyramido`` (:mod:`engine.cli`): ``new`` without ``--seed`` leaves the set-up to the table.

A pyramid file holds one placed domino per line, ``DOMINO @ sK X,Y DIR`` (e.g. ``r03-b @ s1 0,0 E``), and
optionally a first line ``stage N`` for the stage being built. Bad input exits with status 2 and one line.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from engine.cli import add_game_commands
from engine.cli_support import read_state
from engine.errors import InvalidActionError
from engine.pyramido.activation import best_activation
from engine.pyramido.areas import areas, render
from engine.pyramido.dominoes import gems_text, parse_back, parse_domino, parse_gems
from engine.pyramido.game import GAME, PyramidoState
from engine.pyramido.geometry import PlacedDomino, Pyramid, legal_placements


def _read_state(path: str) -> PyramidoState:
    state: PyramidoState = read_state(GAME, path)
    return state


def _read_pyramid(path: str) -> Pyramid:
    """A pyramid file: ``stage N`` (optional, first), then one ``DOMINO @ sK X,Y DIR`` a line, each checked in
    order; an error names the file and the line (``#`` starts a comment)."""
    numbered = [(n, ln.split("#")[0].strip()) for n, ln in enumerate(Path(path).read_text(encoding="utf-8")
                                                                     .splitlines(), start=1)]
    numbered = [(n, ln) for n, ln in numbered if ln]
    stage = 0
    if numbered and numbered[0][1].lower().startswith("stage"):
        n, first = numbered.pop(0)
        try:
            stage = int(first.split()[1])
            if not 1 <= stage <= 4:
                raise ValueError
        except (IndexError, ValueError):
            raise InvalidActionError(f"{path}, line {n}: {first!r} is not 'stage N' with N 1 to 4") from None
    pyramid = Pyramid(1)
    for n, text in numbered:
        try:
            placed = PlacedDomino.parse(text)
            while pyramid.stage < placed.placement.stage:
                pyramid = pyramid.next_stage()
            pyramid = pyramid.place(placed.domino, placed.placement)
        except ValueError as exc:
            raise InvalidActionError(f"{path}, line {n}: {exc}") from None
    while pyramid.stage < stage:
        pyramid = pyramid.next_stage()
    return pyramid


def _player_pyramid(args: argparse.Namespace) -> tuple[Pyramid, PyramidoState | None, int | None]:
    if args.pyramid:
        return _read_pyramid(args.pyramid), None, None
    if not args.state:
        raise InvalidActionError("give --state FILE (a game state) or --pyramid FILE (placed dominoes)")
    state = _read_state(args.state)
    names = [e.name for e in state.explorers]
    if args.player:
        if args.player not in names:
            raise InvalidActionError(f"no player {args.player!r} in the state; players: {', '.join(names)}")
        seat = names.index(args.player)
    else:
        to_move = GAME.to_move(state)
        seat = to_move if to_move is not None else 0
    return state.explorers[seat].pyramid, state, seat




def _back(args: argparse.Namespace) -> int:
    state = _read_state(args.state)
    GAME.check_state(state)
    state = GAME.observe_back(state, args.pile, parse_back(args.back))
    print(GAME.state_to_json(state))
    return 0


def _placements(args: argparse.Namespace) -> int:
    pyramid, state, _seat = _player_pyramid(args)
    if args.domino:
        domino = parse_domino(args.domino)
    elif state is not None and state.holding is not None:
        domino = state.holding
    else:
        domino = None
    found = legal_placements(pyramid, domino)
    if args.json:
        print(json.dumps([str(p) for p in found]))
        return 0
    what = f"domino {domino}" if domino is not None else "a domino"
    print(f"{len(found)} legal placements for {what} in stage {pyramid.stage}")
    for p in found:
        print(f"  {p}")
    return 0


def _areas(args: argparse.Namespace) -> int:
    pyramid, _state, _seat = _player_pyramid(args)
    found = areas(pyramid)
    if args.json:
        out: list[dict[str, Any]] = [
            {"colour": a.colour.value, "anchor": list(a.anchor), "cells": sorted(map(list, a.cells)), "icons": a.icons}
            for a in found
        ]
        print(json.dumps(out))
        return 0
    print(render(pyramid))
    for a in found:
        print(f"  {a}")
    return 0


def _activate(args: argparse.Namespace) -> int:
    pyramid, state, seat = _player_pyramid(args)
    if args.inventory is not None:
        inventory = parse_gems(args.inventory)
    elif state is not None and seat is not None:
        inventory = state.explorers[seat].inventory
    else:
        raise InvalidActionError("give --inventory GEMS (e.g. 'o2 b1 m3') with --pyramid")
    keep = parse_gems(args.keep) if args.keep else (0,) * 6
    result = best_activation(areas(pyramid), inventory, keep)
    if args.json:
        print(json.dumps({
            "activations": [str(a) for a in result.activations],
            "points": result.points,
            "area_points": result.area_points,
            "mythical_left": result.mythical_left,
            "used": gems_text(result.used),
        }))
        return 0
    print(f"inventory {gems_text(inventory)}" + (f", keeping {gems_text(keep)}" if any(keep) else ""))
    for a in result.activations:
        print(f"  activate {a}")
    print(f"{result.area_points} from areas + {result.mythical_left} mythical left = {result.points} points")
    return 0


def register(subparsers: Any) -> None:
    """Add ``companion pyramido`` and its subcommands."""
    parser = subparsers.add_parser(
        "pyramido",
        help="Pyramido: Forgotten Treasures: placements, areas, gem activation, simulation",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
    )
    sub = parser.add_subparsers(dest="pyramido_command", metavar="SUBCOMMAND", required=True)
    add_game_commands(sub, GAME)

    def with_source(p: argparse.ArgumentParser) -> None:
        p.add_argument("--state", help="game state JSON file")
        p.add_argument("--pyramid", help="pyramid file: one 'DOMINO @ sK X,Y DIR' per line")
        p.add_argument("--player", help="whose pyramid (default: the player to move)")
        p.add_argument("--json", action="store_true", help="print JSON")

    p = sub.add_parser("back", help="record the back seen on a pile's face-down top; print the new state JSON")
    p.add_argument("--state", required=True)
    p.add_argument("pile", type=int, help="pile 1-5")
    p.add_argument("back", help="each block's colour and icon count, e.g. r2-b0")
    p.set_defaults(func=_back)

    p = sub.add_parser("placements", help="every legal placement of a domino in the current stage")
    with_source(p)
    p.add_argument("--domino", help="the domino, e.g. r03-b (default: the one in hand)")
    p.set_defaults(func=_placements)

    p = sub.add_parser("areas", help="the pyramid's top view and its areas")
    with_source(p)
    p.set_defaults(func=_areas)

    p = sub.add_parser("activate", help="the activation that scores the most this stage")
    with_source(p)
    p.add_argument("--inventory", help="gems, e.g. 'o2 b1 m3' (default: the player's inventory)")
    p.add_argument("--keep", help="gems to keep for later stages")
    p.set_defaults(func=_activate)
