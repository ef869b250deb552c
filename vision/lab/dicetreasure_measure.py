"""``python -m vision.lab.dicetreasure_measure``: the Dice Treasure reader (:mod:`vision.dicetreasure_read`)
measured on rendered frames of seeded games (:mod:`vision.lab.dicetreasure_render`): a stand-in deck enrolled from
the camera, cards identified, dice on spaces and loose dice read, each against the truth (sure and wrong counted
apart), and the reading time. Renders only: no photograph of Dice Treasure cards exists. The figures are in
docs/dicetreasure-table.md."""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np

from vision.dicetreasure_read import (
    SURE,
    DiceTreasureReader,
    canonical_entry,
    card_spots,
    enrol,
    identify,
    read_card,
    teach_palette,
    turned,
)


def measure(args: argparse.Namespace) -> dict[str, Any]:  # pragma: no cover - the measurement command
    from collections import Counter

    from device.tables import adapter_for
    from engine.dicetreasure import GAME, sample_deck
    from vision.conditions import parse_condition
    from vision.lab.dicetreasure_render import (
        render_dealt,
        render_enrolment,
        render_state,
        render_teaching,
        seeded_turn,
    )
    from vision.registration import locate

    cv2.setNumThreads(1)
    deck = sample_deck()
    reader = DiceTreasureReader(deck)
    condition = parse_condition(args.condition) if args.condition else None
    size = tuple(int(v) for v in args.size.split("x"))
    out: dict[str, Any] = {"condition": args.condition or "none", "size": args.size,
                           "seeds": [args.seed, args.seed + args.frames - 1]}

    def seen(image: np.ndarray, name: str) -> np.ndarray:
        return image if condition is None else condition.apply(image, name)

    teaching = render_teaching(args.seed + 999, size=size)  # type: ignore[arg-type]
    image = seen(teaching.image, "teach")
    reader.set_palette(teach_palette(reader, image, locate(image, "dicetreasure")))

    exact = enrol_sure_wrong = enrol_doubted = 0
    enrol_ms = []
    cards = deck.motif_cards[: args.cards]
    for n, card in enumerate(cards):
        frame = render_enrolment(card, args.seed + 1000 + n, upside_down=(n % 5 == 4))
        image = seen(frame.image, f"enrol-{n}")
        t0 = time.process_time()
        view = locate(image, "dicetreasure").zone("motif-cards-1")
        got = None
        if view is not None:
            reading, _ = read_card(image, view.fit, view.zone, 0, reader.colours)
            got = enrol(reading, card.id) if reading.found else None
        enrol_ms.append(1000 * (time.process_time() - t0))
        right = got is not None and got.entry == canonical_entry(card)
        exact += right
        enrol_sure_wrong += bool(got is not None and not right and got.sure)
        enrol_doubted += bool(got is None or not got.sure)
    out["enrolment"] = {"cards": len(cards), "exact": exact, "wrong_and_sure": enrol_sure_wrong,
                        "doubted": enrol_doubted, "median_ms": round(float(np.median(enrol_ms)), 1)}

    ident = Counter[str]()
    spaces = Counter[str]()
    loose = Counter[str]()
    turns = Counter[str]()
    frame_ms = []
    identify_ms = []
    table = adapter_for(GAME)
    for n in range(args.frames):
        seed = args.seed + n
        players = 1 if n % 3 == 0 else 2
        before, _, after = seeded_turn(players, seed)
        dealt = [c.card.id for p in before.players for c in p.cards] + [c.card.id for c in before.middle]
        reader.forget()
        first = render_dealt(before, seed + 50_000, size=size)  # type: ignore[arg-type]
        image = seen(first.image, f"dealt-{n}")
        reg = locate(image, "dicetreasure", players)
        truth0 = {(c.zone, c.spot): c.card for c in first.cards}
        # Against the whole deck, one card at a time (no spot memory, nothing known of the game):
        for view in reg.zones:
            for spot in range(len(card_spots(view.zone))):
                want = truth0.get((view.zone.key, spot))
                if want is None:
                    continue
                reading, picture = read_card(image, view.fit, view.zone, spot, reader.colours)
                t0 = time.process_time()
                named = identify(reading, deck)
                if picture is not None:
                    other = identify(turned(reading, picture)[0], deck)
                    named = other if other.score > named.score + 0.1 else named
                identify_ms.append(1000 * (time.process_time() - t0))
                ident["deck_cards"] += 1
                ident["deck_right_sure"] += named.card == want and named.confidence >= SURE
                ident["deck_wrong_sure"] += named.card not in (want, None) and named.confidence >= SURE
        first_read = reader.read(image, reg, loose=False, among=dealt)
        for c in first_read.cards:
            named_as = truth0.get((c.reading.zone, c.reading.spot))
            ident["dealt_cards"] += 1
            ident["dealt_right_sure"] += c.identity.card == named_as and c.identity.confidence >= SURE
            ident["dealt_wrong_sure"] += c.identity.card != named_as and c.identity.confidence >= SURE
        frame = render_state(after, seed, size=size)  # type: ignore[arg-type]
        image = seen(frame.image, f"frame-{n}")
        t0 = time.process_time()
        reg = locate(image, "dicetreasure", players)
        read = reader.read(image, reg, among=dealt)
        frame_ms.append(1000 * (time.process_time() - t0))
        truth = {(c.zone, c.spot): c for c in frame.cards}
        for c in read.cards:
            t = truth.get((c.reading.zone, c.reading.spot))
            if t is None:
                continue
            ident["turn_cards"] += 1
            if c.identity.card != t.card:
                ident["turn_wrong_sure"] += c.identity.confidence >= SURE
                continue
            ident["turn_right_sure"] += c.identity.confidence >= SURE
            for d in c.dice:
                spaces["spaces"] += 1
                spaces["unsure" if d.unsure else ("right_and_sure" if d.die == t.dice[d.space - 1]
                                                   else "wrong_and_sure")] += 1
        for key, dice in (("tray", frame.tray), ("common-reserve", frame.common)):
            lying = Counter(str(d) for d in dice)
            got_dice = read.loose.get(key, ())
            loose["true"] += sum(lying.values())
            loose["found"] += len(got_dice)
            sure_seen = Counter(str(d.die) for d in got_dice if not d.unsure)
            loose["right_and_sure"] += sum((sure_seen & lying).values())
            loose["wrong_and_sure"] += sum((sure_seen - lying).values())
        view = table.observe([read], moved=False)
        explained = table.explain(before, view)
        turns["turns"] += 1
        if not explained.problems:
            # Right when the actions lead to the true state (two equal dice from hand and reserve may be
            # swapped: the same state).
            end = before
            for action in explained.actions:
                end = GAME.apply(end, action)
            turns["right" if GAME.state_to_json(end) == GAME.state_to_json(after) else "wrong"] += 1
        else:
            turns["asked"] += 1
    out["identification"] = dict(ident)
    out["identify_ms_median"] = round(float(np.median(identify_ms)), 2) if identify_ms else None
    out["spaces"] = dict(spaces)
    out["loose"] = dict(loose)
    out["turns"] = dict(turns)
    out["frame_ms_median"] = round(float(np.median(frame_ms)), 1) if frame_ms else None
    return out


def main(argv: Sequence[str] | None = None) -> int:  # pragma: no cover - the measurement command
    parser = argparse.ArgumentParser(prog="python -m vision.lab.dicetreasure_measure",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("--measure", action="store_true", help="measure on rendered frames (lab)")
    parser.add_argument("--seed", type=int, default=5000, help="first seed (never tuned on: 5000 and up)")
    parser.add_argument("--frames", type=int, default=20)
    parser.add_argument("--cards", type=int, default=63, help="deck cards to enrol")
    parser.add_argument("--size", default="1280x960", help="frame size WxH of the game frames")
    parser.add_argument("--condition", default="", help="KIND:AMOUNT (vision.conditions)")
    args = parser.parse_args(argv)
    if not args.measure:
        parser.print_help()
        return 2
    print(json.dumps(measure(args), indent=1))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
