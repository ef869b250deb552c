"""The ``companion`` command line: one entry point whose subcommands come from the packages that own them.

Each module in :data:`COMMAND_MODULES` has ``register(subparsers)`` that adds its subcommands and sets
``func`` on them; a subcommand's ``func(args)`` returns the exit status. ``companion bench NAME`` runs
the benchmark module named in :data:`BENCHMARKS` (each has ``add_arguments(parser)`` and ``run(args)``).

Errors a user can cause (``ValueError`` and its engine subclasses, ``OSError`` on files,
:class:`device.errors.CompanionError`) print one line on stderr and exit 2; nothing prints a traceback
unless ``COMPANION_DEBUG=1`` is set. Output piped into a reader that stops early (``| head``) ends quietly.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

from engine.game import GAME_MODULES

#: ``companion game GAME`` and ``companion play GAME`` (every game alike), then each game's own extras
#: (``companion pasa advise``, ``companion pyramido areas``, ...), one module per game package.
COMMAND_MODULES: tuple[str, ...] = (
    "engine.cli",
    *(f"{package}.cli" for package in GAME_MODULES.values()),
    "vision.cli",
    "device.commands",
    "device.zones",
    "device.deck",
)

BENCHMARKS: dict[str, str] = {
    **{name: f"{package}.bench" for name, package in GAME_MODULES.items()},
    "vision": "vision.lab.bench",
    "live": "device.bench",
    "zones": "vision.lab.bench_zones",
    "pyradice-table": "vision.lab.bench_pyradice",
    "pyramido-table": "vision.lab.bench_pyramido",
    "dicetreasure-table": "vision.lab.bench_dicetreasure",
    "hint": "engine.bench_advice",
}


def _import_optional(name: str) -> ModuleType | None:
    """Import a command module; ``None`` only if that module itself does not exist yet."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            return None
        raise


def _bench(args: argparse.Namespace) -> int:
    names = list(BENCHMARKS) if args.name == "all" else [args.name]
    status = 0
    for name in names:
        module = _import_optional(BENCHMARKS[name])
        if module is None:
            print(f"companion bench {name}: not available in this build", file=sys.stderr)
            status = 2
            continue
        result = module.run(args)
        status = status or int(result or 0)
    return status


class _Parser(argparse.ArgumentParser):
    """argparse with a usage error in one line on stderr (exit 2), like every other bad input."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="companion",
        description="Table Companion: keeps board games with dice and dominoes by the rules.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        module = _import_optional(name)
        if module is not None:
            module.register(sub)
    bench = sub.add_parser(
        "bench",
        help="run a benchmark and print median figures",
        description="Benchmarks print medians of several runs. NAME: " + ", ".join([*BENCHMARKS, "all"]),
    )
    bench.add_argument("name", choices=[*BENCHMARKS, "all"], metavar="NAME")
    bench.add_argument("--repeat", type=int, default=5, help="runs per figure (median is printed)")
    bench.add_argument("--recording", metavar="DIR", help="live only: a board game's recording played through the "
                       "appliance instead of the bundled Paša one (companion record GAME ... --out DIR)")
    bench.add_argument("--frames", type=int, metavar="N", help="live --recording only: its first N frames "
                       "(default 400)")
    bench.set_defaults(func=_bench)
    return parser


def _quiet_stdout() -> None:
    """After a closed pipe: point stdout at /dev/null so that the flush at exit does not complain again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a file (a test's capture): nothing to flush at exit
        pass


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, while it can still be handled
        return status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (``companion ... | head``): nothing more to say
        _quiet_stdout()
        return 0
    except (ValueError, OSError) as exc:
        if os.environ.get("COMPANION_DEBUG"):
            raise
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"companion {args.command}: error: {message}", file=sys.stderr)
        return 2
    except Exception as exc:  # a bug: say so in one line, keep the traceback for COMPANION_DEBUG=1
        if os.environ.get("COMPANION_DEBUG"):
            raise
        print(
            f"companion {args.command}: internal error ({type(exc).__name__}: {exc}); "
            "run again with COMPANION_DEBUG=1 for details",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
