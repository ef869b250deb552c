"""``companion deck``: teach the device the players' own Dice Treasure deck from the camera, card by card.

- ``companion deck enrol --deck FILE (IMAGE... | --recording DIR) [--yes]``: each card laid on the first card
  spot of player 1's mat is read (:func:`vision.dicetreasure_read.read_card`: background, coins, every space's
  place and requirement; "next to" from the spaces' geometry, checked against the grid the file holds) and shown
  to the owner, who accepts it, fixes a field (``background=red``, ``coins=2``, ``space 2 colour=blue``,
  ``space 2 value=any``) or skips it, on the command line. An accepted card is appended to the deck file, which
  the engine's validator checks card by card; a deck short of the 63 cards is saved marked ``"partial": true``
  (enrolment may take several sittings) and plays with the cards it has, with a warning. From a recording
  (cards shown one by one) the still table after each card is laid is read (the stability filter decides when).
  ``--yes`` accepts every card read without doubt and skips the doubted ones (they need the owner).
- ``companion deck bonus --deck FILE --requires red,blue,any --reward 2``: a leprechaun bonus card, typed (the
  camera does not read them), with an id of its own (``leprechaun-N``) that no motif card has.
- ``companion deck show FILE`` and ``companion deck check FILE``: the deck in words with its warnings (stand-in,
  partial, ids that collide), and the validator's problems (exit 1 when there are any).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from device.errors import UsageError
from engine.dicetreasure.cards import (
    ANY,
    BACKGROUNDS,
    DEFAULT_DICE_COLOURS,
    FORMAT,
    MOTIF_CARD_COUNT,
    deck_problems,
    deck_warnings,
    parse_deck,
)

#: Where the card to enrol lies: the first card spot of player 1's mat.
ENROL_ZONE = "motif-cards-1"
#: The owners' own deck on the device, beside the event log (the page's enrolment writes it).
DECK_FILE = "deck.json"


def register(subparsers: Any) -> None:
    deck = subparsers.add_parser("deck", help="teach the device your own Dice Treasure deck from the camera",
                                 description=__doc__.splitlines()[0])
    sub = deck.add_subparsers(dest="deck_command", required=True)
    enrol = sub.add_parser("enrol", help="read cards laid on player 1's first card spot and add them to a deck file")
    enrol.add_argument("images", nargs="*", help="camera frames, one card each")
    enrol.add_argument("--recording", metavar="DIR", help="an enrolment recording (cards shown one by one)")
    enrol.add_argument("--deck", required=True, metavar="FILE", help="the deck file to add to (made if missing)")
    enrol.add_argument("--name", default="my box", help="the deck's name when the file is made")
    enrol.add_argument("--yes", action="store_true", help="accept cards read without doubt, skip doubted ones")
    enrol.set_defaults(func=enrol_command)
    bonus = sub.add_parser("bonus", help="add a leprechaun bonus card (typed: the camera does not read them)")
    bonus.add_argument("--deck", required=True, metavar="FILE")
    bonus.add_argument("--requires", required=True, help="background colours or 'any', comma separated")
    bonus.add_argument("--reward", required=True, type=int, help="gold it gives")
    bonus.set_defaults(func=bonus_command)
    for name, func in (("show", show_command), ("check", check_command)):
        p = sub.add_parser(name, help=f"{name} a deck file")
        p.add_argument("file")
        p.set_defaults(func=func)


# --- the deck file ------------------------------------------------------------------------------------------


def read_file(path: Path, name: str = "my box") -> dict[str, Any]:
    """The deck file's data, or a new partial deck's when the file does not exist yet."""
    if not path.exists():
        return {"format": FORMAT, "name": name, "stand_in": False, "partial": True,
                "dice_colours": list(DEFAULT_DICE_COLOURS), "motif_cards": [], "bonus_cards": []}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: not a deck file ({exc.msg} at line {exc.lineno})") from None
    if not isinstance(data, dict) or not isinstance(data.get("motif_cards"), list):
        raise UsageError(f"{path}: not a deck file (no motif_cards list)")
    return data


def write_file(path: Path, data: dict[str, Any]) -> None:
    """Write atomically (a power cut leaves the old file or the new one)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def next_id(data: dict[str, Any], background: str) -> str:
    """``background-N``: the next number free for this background (the stand-in's ids look the same)."""
    used = {c.get("id") for c in data["motif_cards"]} | {b.get("id") for b in data.get("bonus_cards", [])}
    n = 1
    while f"{background}-{n}" in used:
        n += 1
    return f"{background}-{n}"


def add_card(data: dict[str, Any], entry: dict[str, Any]) -> list[str]:
    """Append ``entry`` if the validator accepts the deck with it (the problems it names otherwise); the deck
    stays marked partial until it holds the 63 cards."""
    trial = {**data, "motif_cards": [*data["motif_cards"], entry]}
    trial["partial"] = len(trial["motif_cards"]) < MOTIF_CARD_COUNT
    problems = deck_problems(trial)
    if not problems:
        data.clear()
        data.update(trial)
    return problems


def apply_fix(entry: dict[str, Any], text: str) -> dict[str, Any]:
    """The entry with one field changed as the owner typed it: ``background=red``, ``coins=2``, ``space 2
    colour=blue``, ``space 2 value=any`` (spaces numbered from 1 as listed)."""
    words = text.replace("=", " = ").split()
    out = json.loads(json.dumps(entry))
    try:
        if words[0] == "space":
            space = out["spaces"][int(words[1]) - 1]
            field, value = words[2], words[4]
            if field == "colour":
                space["colour"] = value
            elif field == "value":
                space["value"] = ANY if value == ANY else int(value)
            else:
                raise ValueError(field)
        elif words[0] == "background" and words[2] in BACKGROUNDS:
            out["background"] = words[2]
        elif words[0] == "coins":
            out["coins"] = int(words[2])
        else:
            raise ValueError(words[0])
    except (IndexError, ValueError):
        raise UsageError(f"{text!r}: fix one field: background=COLOUR, coins=N, space N colour=COLOUR|any, "
                         "space N value=1..6|any") from None
    return out


def card_words(entry: dict[str, Any]) -> str:
    spaces = ", ".join(f"{k}: {s['colour']}/{s['value']} at {s['at']}" for k, s in enumerate(entry["spaces"], 1))
    return f"{entry['id']}: {entry['background']}, {entry['coins']} coin(s); spaces {spaces}"


# --- reading cards ------------------------------------------------------------------------------------------


def read_enrolment(image: np.ndarray, card_id: str) -> Any:
    """The card on the enrolment spot of ``image`` as a deck entry with its doubts (vision's ``Enrolment``)."""
    from vision.dicetreasure_read import CardColours, enrol, read_card
    from vision.registration import locate

    view = locate(image, "dicetreasure").zone(ENROL_ZONE)
    if view is None:
        raise UsageError("player 1's mat is not in view: lay it under the camera with the card on its first spot")
    reading, _ = read_card(image, view.fit, view.zone, 0, CardColours.nominal())
    if not reading.found:
        raise UsageError("no card on player 1's first card spot" +
                         (f" ({'; '.join(reading.problems)})" if reading.problems else ""))
    return enrol(reading, card_id)


def recording_stills(path: Path) -> Iterator[np.ndarray]:
    """The still table after each change in an enrolment recording, as the stability filter settles on it."""
    import cv2

    from device.recording import load_recording
    from device.stability import StabilityFilter

    recording = load_recording(path)
    still = StabilityFilter(lambda image: [], agree_frames=3, same=lambda a, b: tuple(a) == tuple(b),
                            arrange=tuple)
    last: str | None = None
    for frame in recording.frames:
        image = cv2.imread(str(recording.root / frame.file))
        if image is None:
            continue
        # A reading is one number naming the picture's content (the filter only needs "same or not").
        content: tuple[Any, ...] = (int(image[::16, ::16].sum()),)
        result = still.step(image, read=partial(tuple, content))
        if result.settled is not None and frame.file != last:
            last = frame.file
            yield image


def enrol_cards(images: Sequence[np.ndarray], data: dict[str, Any], *, accept_sure: bool,
                ask: Callable[[str], str], say: Callable[[str], None]) -> tuple[int, int]:
    """Read each image's card, let the owner accept, fix or skip it, append the accepted ones to ``data``.
    Returns (added, skipped)."""
    added = skipped = 0
    for n, image in enumerate(images, 1):
        try:
            got = read_enrolment(image, "?")
        except (UsageError, ValueError) as exc:
            say(f"card {n}: {exc}")
            skipped += 1
            continue
        entry = dict(got.entry)
        entry["id"] = next_id(data, str(entry["background"]))
        say(f"card {n}: {card_words(entry)}")
        for doubt in got.doubts:
            say(f"  check: {doubt}")
        while True:
            if accept_sure:
                answer = "" if got.sure else "s"
                if not got.sure:
                    say("  doubted: skipped (enrol it again without --yes to check it)")
            else:
                answer = ask("  [Enter] accept, FIELD=VALUE fix, s skip: ").strip()
            if answer == "s":
                skipped += 1
                break
            if answer:
                try:
                    entry = apply_fix(entry, answer)
                    if "background" in answer:
                        entry["id"] = next_id(data, str(entry["background"]))
                except UsageError as exc:
                    say(f"  {exc}")
                    continue
                say(f"  now: {card_words(entry)}")
                continue
            problems = add_card(data, entry)
            if problems:
                say(f"  not added: {'; '.join(problems[:3])}")
                if accept_sure:
                    skipped += 1
                    break
                continue
            added += 1
            break
    return added, skipped


# --- commands -----------------------------------------------------------------------------------------------


def enrol_command(args: argparse.Namespace) -> int:
    import cv2

    if bool(args.images) == bool(args.recording):
        raise UsageError("companion deck enrol: give camera frames or --recording DIR (one of them)")
    path = Path(args.deck)
    data = read_file(path, args.name)
    if args.recording:
        images: list[np.ndarray] = list(recording_stills(Path(args.recording)))
    else:
        images = []
        for name in args.images:
            image = cv2.imread(name)
            if image is None:
                raise UsageError(f"{name}: not an image that can be read")
            images.append(image)
    added, skipped = enrol_cards(images, data, accept_sure=args.yes, ask=input, say=print)
    if added:
        write_file(path, data)
    deck = parse_deck(data, str(path)) if data["motif_cards"] else None
    print(f"{added} card(s) added, {skipped} skipped; {path}: {len(data['motif_cards'])} motif cards")
    for warning in deck_warnings(deck) if deck is not None else []:
        print(f"warning: {warning}")
    return 0


def add_bonus(data: dict[str, Any], requires: Sequence[str], reward: int) -> str:
    """Append a leprechaun bonus card (``leprechaun-N``, an id no motif card has) if the validator accepts the
    deck with it; its id, or a UsageError naming the problems."""
    if not data["motif_cards"]:
        raise UsageError("enrol motif cards first (a deck needs at least one)")
    used = {c.get("id") for c in data["motif_cards"]} | {b.get("id") for b in data.get("bonus_cards", [])}
    n = 1
    while f"leprechaun-{n}" in used:
        n += 1
    trial = {**data, "bonus_cards": [*data.get("bonus_cards", []),
                                     {"id": f"leprechaun-{n}", "requires": list(requires), "reward": reward}]}
    trial["partial"] = bool(trial.get("partial")) or len(trial["bonus_cards"]) != 21
    problems = deck_problems(trial)
    if problems:
        raise UsageError(f"not added: {'; '.join(problems[:3])}")
    data.clear()
    data.update(trial)
    return f"leprechaun-{n}"


def bonus_command(args: argparse.Namespace) -> int:
    path = Path(args.deck)
    data = read_file(path)
    requires = [r.strip() for r in args.requires.split(",") if r.strip()]
    try:
        card = add_bonus(data, requires, args.reward)
    except UsageError as exc:
        raise UsageError(f"{path}: {exc}") from None
    write_file(path, data)
    print(f"added {card} ({', '.join(requires)} -> {args.reward}); {len(data['bonus_cards'])} bonus cards")
    return 0


def show_command(args: argparse.Namespace) -> int:
    data = read_file(Path(args.file))
    deck = parse_deck(data, args.file)
    print(f"{deck.name}: {len(deck.motif_cards)} motif cards, {len(deck.bonus_cards)} leprechaun cards"
          + (" (partial)" if deck.partial else "") + (" (stand-in)" if deck.stand_in else ""))
    for card in deck.motif_cards:
        spaces = ", ".join(str(s) for s in card.spaces)
        print(f"  {card}: {spaces}")
    for warning in deck_warnings(deck):
        print(f"warning: {warning}")
    return 0


def check_command(args: argparse.Namespace) -> int:
    from engine.dicetreasure.cards import validate_deck

    problems = validate_deck(args.file)
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"{args.file}: a good deck")
    return 1 if problems else 0
