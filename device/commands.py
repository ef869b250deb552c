"""``companion run`` (the appliance) and ``companion replay`` (a recording through the whole pipeline).

``companion run --demo`` is what ``make run`` starts: the bundled recording of a two-player Paša game at
its recorded pace, the mock panel with a virtual panel on the page, a fresh state directory, and the
page address printed. SIGTERM and Ctrl-C stop it cleanly.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

from device.appliance import Appliance, Pipeline, Reader, board_reader_for, choose_reader, make_reader, true_actions
from device.config import DEFAULTS_FILE, load_config, resolve_state_dir, search_paths
from device.errors import UsageError
from device.eventlog import EventLog
from device.hub import Hub
from device.recording import load_recording
from device.session import GameSession, game_record_json
from device.sources import ReplaySource, make_source
from device.stability import StabilityFilter
from device.tables import adapter_class, adapter_for
from engine.game import find_game

DEMO_RECORDING = Path(__file__).with_name("recordings") / "pasa-2p"
#: How long the demo shows its finished game (winner, final sheet) before it plays it again.
DEMO_GAME_OVER_S = 20.0


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def register(subparsers: Any) -> None:
    where = ", ".join(str(p) for p in search_paths())
    run = subparsers.add_parser(
        "run",
        help="run the appliance: camera, game session, panel and web page",
        description=(
            "Run the table companion. The configuration is read from --config FILE, else the first of: "
            f"{where}; keys not given keep the documented defaults in {DEFAULTS_FILE}."
        ),
    )
    run.add_argument("--source", help="frame source: picamera2, opencv:N or replay:PATH (default: from config)")
    run.add_argument("--fast", action="store_true", help="play a replay source as fast as possible")
    run.add_argument("--config", metavar="FILE", help="configuration file (TOML)")
    run.add_argument("--demo", action="store_true",
                     help="replay the bundled Paša recording with the mock panel (what `make run` does)")
    run.add_argument("--host", help="address to serve the page on (default: from config)")
    run.add_argument("--port", type=int, help="port to serve the page on (default: from config)")
    run.add_argument("--reader", choices=("model", "truth"),
                     help="how dice are read: the vision model (default) or a recording's truth")
    run.add_argument("--state-dir", metavar="DIR", help="state directory (default: from config)")
    run.add_argument("--offline", action="store_true", help="no camera: scorekeeper only")
    run.set_defaults(func=run_command)

    replay = subparsers.add_parser(
        "replay",
        help="run a recording through the whole pipeline as fast as possible and print the game record",
        description="Replays a recording (a folder of frames plus recording.json) through stability filter, "
        "session and event log, and prints every accepted action and the final score sheet.",
    )
    replay.add_argument("path", help="recording folder")
    replay.add_argument("--json", action="store_true", help="print the record as JSON")
    replay.add_argument("--reader", choices=("model", "truth"), default=None,
                        help="read dice with the vision model (default when available) or from the recording's truth")
    replay.add_argument("--state-dir", metavar="DIR", help="keep the event log here (default: a temporary folder)")
    replay.add_argument("--resume", action="store_true",
                        help="continue an unfinished replay of this recording found in --state-dir")
    replay.add_argument("--config", metavar="FILE", help="configuration file (stability settings)")
    replay.add_argument("--at-table", action="store_true",
                        help="set the board game up as its players would at a real table (without the recording's "
                             "seed: Pyradice's covered quarry dice and Pyramido's deck unknown, read as they show)")
    replay.set_defaults(func=replay_command)

    games = subparsers.add_parser(
        "games",
        help="list the games in the event log, or print one as JSON",
        description="Finished and running games are kept in the event log; this lists them or exports one.",
    )
    games.add_argument("id", nargs="?", type=int, help="the game to print as JSON")
    games.add_argument("--state-dir", metavar="DIR", help="state directory (default: from config)")
    games.add_argument("--config", metavar="FILE", help="configuration file (TOML)")
    games.set_defaults(func=games_command)

    record = subparsers.add_parser(
        "record",
        help="render a recording of a simulated game (frames and its truth) to replay through the pipeline",
        description="Renders a complete simulated game with the project's own renderer into OUT/recording.json "
                    "and OUT/frames/, with the true record to compare a replay with (companion replay OUT --json): "
                    "Paša's tray, or a board game's mats and pieces (no photograph of those pieces exists).",
    )
    record.add_argument("game", help="the game (pasa, pyradice, pyramido, dicetreasure)")
    record.add_argument("--seed", type=int, default=7, help="the simulated game's seed (default 7, the demo's)")
    record.add_argument("--players", type=int, default=2, help="how many players (default 2)")
    record.add_argument("--out", required=True, metavar="DIR", help="folder to write (replaced if it exists)")
    record.add_argument("--condition", metavar="KIND:AMOUNT",
                        help="a camera condition applied to every frame (as eval-dice --condition takes it)")
    record.set_defaults(func=record_command)


#: Game -> the module that renders its recordings (``make(out, seed, players, condition) -> dict``): lab code,
#: imported only by ``companion record``.
RECORDERS: dict[str, str] = {
    "pasa": "device.make_recording",
    "pyradice": "device.record_pyradice",
    "pyramido": "device.record_pyramido",
    "dicetreasure": "device.record_dicetreasure",
}


def record_command(args: argparse.Namespace) -> int:
    import importlib

    from engine.game import find_game

    game = find_game(args.game)  # an unknown game is a one-line error
    try:
        module = importlib.import_module(RECORDERS[game.name])
    except (KeyError, ModuleNotFoundError) as exc:
        if isinstance(exc, ModuleNotFoundError) and exc.name != RECORDERS.get(game.name):
            raise
        raise UsageError(f"companion record {game.name}: {game.title} recordings are not rendered yet") from None
    if not game.min_players <= args.players <= game.max_players:
        raise UsageError(f"companion record {game.name}: {game.title} takes {game.min_players} to {game.max_players} "
                         f"players, not {args.players}")
    if args.condition:
        from vision.conditions import parse_condition

        parse_condition(args.condition)  # a bad condition is reported before anything is written
    make = module.make

    out = Path(args.out)
    if out.exists() and not (out / "recording.json").is_file():
        raise UsageError(f"{out} exists and is not a recording: choose another --out")
    data = make(out, args.seed, args.players, args.condition)
    sheet = {n: s["total"] for n, s in data["expected"]["sheet"].items()}
    print(f"{out}: {len(data['frames'])} frames, true sheet {sheet}")
    return 0


def run_command(args: argparse.Namespace) -> int:
    with contextlib.ExitStack() as cleanup:
        return _run(args, cleanup)


def _run(args: argparse.Namespace, cleanup: contextlib.ExitStack) -> int:
    config = load_config(args.config)
    reader_name = args.reader
    if args.demo:
        if not (DEMO_RECORDING / "recording.json").is_file():
            raise UsageError(f"the demo recording is missing at {DEMO_RECORDING}")
        recording = load_recording(DEMO_RECORDING)
        config = config.replace(
            camera={"source": f"replay:{DEMO_RECORDING}"},
            panel={"mode": "mock"},
            game={"players": list(recording.players), "options": dict(recording.options), "name": recording.game},
            web={"host": args.host or "127.0.0.1"},
        )
        if args.state_dir:
            state_dir = Path(args.state_dir)
        else:  # removed when the demo stops
            state_dir = Path(cleanup.enter_context(tempfile.TemporaryDirectory(prefix="companion-demo-")))
    else:
        state_dir = Path(args.state_dir) if args.state_dir else config.storage.path()
    if args.source:
        config = config.replace(camera={"source": args.source})
    source = None
    if not args.offline:
        source = make_source(config.camera.source, width=config.camera.width, height=config.camera.height,
                             warmup_s=config.camera.warmup_s, fast=args.fast, loop=args.demo,
                             loop_pause_s=DEMO_GAME_OVER_S if args.demo else 0.0)
    if args.demo:
        reader, reader_name = choose_reader(reader_name, say=_say)
    else:
        reader = make_reader(reader_name or "model")
    appliance = Appliance(config, source, reader, state_dir=state_dir)
    appliance.restart_on_loop = args.demo  # the demo plays its game again and again
    with appliance:
        appliance.start_panel()
        address = appliance.start_web(args.host, args.port)
        print(f"Table Companion: open {address} (state in {state_dir}; Ctrl-C stops)", flush=True)

        def stop(signum: int, frame: Any) -> None:
            appliance.stop()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        appliance.run()
    return 0


def replay(path: str | Path, *, reader_name: str = "truth", state_dir: Path | None = None, resume: bool = False,
           config_file: str | None = None, reader: Reader | None = None, at_table: bool = False) -> dict[str, Any]:
    """Run a recording through the pipeline synchronously; return the game record (as JSON data).

    Paša's dice are read by ``reader`` (default: ``reader_name``'s); a board game's pieces by the reader its
    table adapter makes for the recorded table (``reader_name`` "model"), or from the frames' truth.
    ``at_table``: the game set up as its players would at a real table, not from the recording's seed
    (:meth:`device.tables.TableAdapter.at_table`); the true record then begins with the set-up steps the seed drew,
    and ``actions`` also holds the steps that only record what the camera saw (``seen_only``: a die first seen)."""
    config = load_config(config_file, search=False)
    recording = load_recording(path)
    options, seed = dict(recording.options), recording.seed
    before: tuple[str, ...] = ()
    if at_table:
        options, before = adapter_for(find_game(recording.game)).at_table(recording.players, options, seed)
        seed = None
    if reader is None and not adapter_class(recording.game).reads_dice_tray:
        pass  # a board game's pieces are read by the reader its adapter makes for the recorded table
    elif reader is None:
        reader = make_reader(reader_name)
    with tempfile.TemporaryDirectory(prefix="companion-replay-") as tmp:
        folder = state_dir or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        with EventLog(folder / "events.sqlite3") as log:
            session = GameSession(log, Hub())
            start = 0
            resumed = resume and session.resume() and _same_game(session, recording)
            if resumed:
                assert session.record is not None
                last = log.last_frame(session.record.id)
                start = 0 if last is None else last + 1
            else:
                session.new_game(recording.players, options, game=recording.game, mode="camera", seed=seed)
            pipeline = Pipeline(
                session,
                StabilityFilter(lambda image: [], motion_threshold=config.stability.motion_threshold,
                                motion_delta=config.stability.motion_delta,
                                agree_frames=config.stability.agree_frames),
                reader or make_reader(reader_name if reader_name in ("model", "truth") else "truth"),
                session.hub,
                players_answer=True,
                expected_actions=(*before, *true_actions(recording.expected)),
                steps_before=len(before),
                reader_for=board_reader_for(recording.table, truth=reader_name == "truth"),
            )
            source = ReplaySource(path, fast=True, start=start)
            with source:
                while True:
                    try:
                        frame = source.read()
                    except EOFError:
                        break
                    pipeline.process(frame, frame.inputs)
            result = session.export()
            result["players_answered"] = pipeline.answers
            result["players_decided"] = pipeline.decided
    expected = recording.expected.get("sheet")
    if expected is not None:
        result["expected_sheet"] = expected
        result["matches_expected"] = {n: s["total"] for n, s in result["sheet"].items()} == {
            n: s["total"] for n, s in expected.items()
        } and result["sheet"] == expected
    return result


def _same_game(session: GameSession, recording: Any) -> bool:
    record = session.record
    return (record is not None and record.finished is None and record.game == recording.game
            and tuple(record.players) == tuple(recording.players))


def replay_command(args: argparse.Namespace) -> int:
    recording = load_recording(args.path)  # a bad path is reported before anything else
    reading: dict[str, Any]  # Paša's dice by the reader chosen here; a board game's by its adapter's
    if adapter_class(recording.game).reads_dice_tray:
        reader, reader_name = choose_reader(args.reader, say=_say)
        reading = {"reader": reader}
    else:
        reader_name = args.reader or "model"
        reading = {"reader_name": reader_name}
    result = replay(args.path, state_dir=Path(args.state_dir) if args.state_dir else None, resume=args.resume,
                    config_file=args.config, at_table=args.at_table, **reading)
    if args.json:
        json.dump(result, sys.stdout, indent=2, ensure_ascii=False)
        print()
    else:
        print(f"{result['game']}: {', '.join(result['players'])} ({result['mode']}, read by {reader_name})")
        for text, origin in zip(result["actions"], result["origins"], strict=True):
            print(f"  {text}  [{origin}]")
        for name, sheet in result["sheet"].items():
            cells = " ".join(f"{c}={v}" for c, v in sheet["breakdown"].items())
            print(f"{name}: {sheet['total']}  ({cells})")
        if result["players_answered"]:
            print(f"the players answered {result['players_answered']} question(s) the device asked "
                  "(from the recording's truth)")
        if result.get("players_decided"):
            print(f"the players made {result['players_decided']} choice(s) or entries the rules leave to them "
                  "(from the recording's truth)")
        if result["winners"]:
            print(f"winner: {', '.join(result['winners'])}")
        if "matches_expected" in result:
            print("matches the recording's true sheet" if result["matches_expected"]
                  else "DOES NOT match the recording's true sheet")
    return 0 if result.get("matches_expected", True) else 1


def games_command(args: argparse.Namespace) -> int:
    path = resolve_state_dir(args.state_dir, args.config) / "events.sqlite3"
    if not path.is_file():
        raise UsageError(f"no event log at {path}")
    with EventLog(path) as log:
        if args.id is not None:
            if args.id not in log.game_ids():
                raise UsageError(f"no game {args.id} in {path}; games: {', '.join(map(str, log.game_ids())) or 'none'}")
            json.dump(game_record_json(log.game(args.id)), sys.stdout, indent=2, ensure_ascii=False)
            print()
            return 0
        for gid in log.game_ids():
            record = log.game(gid)
            state = "finished" if record.finished is not None else "running"
            print(f"{gid}\t{record.game}\t{', '.join(record.players)}\t{record.mode}\t{state}\t"
                  f"{len(record.actions)} actions")
    return 0


__all__ = ["games_command", "register", "replay", "run_command"]
