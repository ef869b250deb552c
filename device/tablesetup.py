"""The table's set-up as the page shows it: the mats to print, and the camera check of the latest frame.

The page (web/) may not reach into vision/, so the session hands it these through the protocol: the sheets of a
game's mats (:func:`vision.matprint.sheet_index`), one sheet as SVG or PDF, what the camera sees of the mats
now (:func:`device.zones.calibrate_frame`: markers seen per sheet, the mapping error, pixels per millimetre and
the smallest piece's size, what to fix in words) with the frame annotated by the registration stage, the
colours taught at the table (:class:`device.teaching.TeachingStore`): one die of each colour laid in view and
taught from the latest frame, and the owners' own Dice Treasure deck (``deck.json`` beside the event log), enrolled
card by card from the camera as ``companion deck enrol`` does on the command line (:mod:`device.deck`): a card laid
on player 1's first card spot is read, the owner checks or fixes it on the page, and it is added only if the deck
validator accepts the deck with it; the file is written atomically, so a power cut keeps the old deck or the new.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2

from device.hub import Hub
from vision import matprint
from vision.mats import PAPERS
from vision.registration import MarkerFinder, annotate

#: The widest annotated frame the page is sent.
VIEW_WIDTH = 960


class TableSetup:
    """Mats and the camera check for one device (the finder is made once: it holds OpenCV's detector)."""

    def __init__(self, hub: Hub, state_dir: Path) -> None:
        self.hub = hub
        self.state_dir = state_dir
        self._finder: MarkerFinder | None = None

    def sheets(self, game: str, players: int) -> list[dict[str, Any]]:
        return matprint.sheet_index(game, players)

    def sheet(self, game: str, number: int, players: int, paper: str | None, kind: str) -> bytes:
        """One sheet as ``kind`` "svg" or "pdf" (a ValueError names what cannot be made)."""
        if paper is not None and paper not in PAPERS:
            raise ValueError(f"paper {paper!r} is not one of {', '.join(PAPERS)}")
        if kind == "svg":
            return matprint.mat_svg(game, number, players, paper).encode("utf-8")
        if kind == "pdf":
            return matprint.mat_pdf(game, number, players, paper)
        raise ValueError(f"a mat is printed as svg or pdf, not {kind!r}")

    def check(self, game: str, players: int) -> tuple[dict[str, Any], bytes | None]:
        """What the camera sees of ``game``'s mats in the latest frame: the report and the annotated JPEG."""
        from device.zones import calibrate_frame

        shot = self.hub.frame()
        if shot is None:
            matprint.sheet_index(game, players)  # an unknown game or player count is said even without a frame
            return {"game": game, "ready": False, "sheets": [], "problems": [],
                    "advice": ["no camera frame yet: is the camera on? (offline games have none)"]}, None
        if self._finder is None:
            self._finder = MarkerFinder(thorough=True)
        report, reg = calibrate_frame(shot.image, game, players, self._finder)
        image = annotate(shot.image, reg)
        h, w = image.shape[:2]
        if w > VIEW_WIDTH:
            image = cv2.resize(image, (VIEW_WIDTH, round(h * VIEW_WIDTH / w)), interpolation=cv2.INTER_AREA)
        ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return report, buf.tobytes() if ok else None

    def taught(self, game: str) -> dict[str, Any]:
        """Which colours of ``game``'s pieces are taught and which are still missing."""
        from device.teaching import TeachingStore

        return TeachingStore(self.state_dir).report(game)

    def teach_colours(self, game: str, players: int | None = None) -> dict[str, Any]:
        """Teach ``game``'s die colours from the dice in the latest frame (one die of each colour in view), or
        Pyramido's block colours from player 1's pyramid mat (dominoes showing each colour laid on it)."""
        from device.teaching import TeachingStore
        from device.zones import teach_blocks, teach_dice

        store = TeachingStore(self.state_dir)
        report = store.report(game)  # an unknown game is said before anything is measured
        shot = self.hub.frame()
        if "block" in report["pieces"]:
            if shot is None:
                raise ValueError("no camera frame yet: lay dominoes showing each of the five colours on player 1's "
                                 "pyramid mat first")
            blocks = teach_blocks(store, shot.image, players)
            return {**store.report(game), "measured": [{"colour": name, "cells": cells} for name, _, cells in blocks]}
        if "die" not in report["pieces"]:
            raise ValueError(f"{game}'s pieces are not dice: they are taught by its own reader")
        if shot is None:
            raise ValueError("no camera frame yet: lay one die of each colour in view of the camera first")
        taught = teach_dice(store, game, shot.image)
        if not taught:
            raise ValueError("no die was found in the camera's view: lay one die of each colour on the table")
        return {**store.report(game), "measured": [{"centre": [round(c, 1) for c in centre], "colour": name}
                                                   for centre, _, name in taught]}

    # --- the owners' own Dice Treasure deck -------------------------------------------------------------------
    @property
    def deck_path(self) -> Path:
        from device.deck import DECK_FILE

        return self.state_dir / DECK_FILE

    def deck(self) -> dict[str, Any]:
        """The deck enrolled on this device so far: its cards in words, how many of the box, its warnings."""
        from device.deck import card_words, read_file
        from engine.dicetreasure.cards import BACKGROUNDS, MOTIF_CARD_COUNT, deck_warnings, parse_deck

        data = read_file(self.deck_path)
        cards = data["motif_cards"]
        warnings = deck_warnings(parse_deck(data, self.deck_path.name)) if cards else []
        return {"name": data.get("name", ""), "file": str(self.deck_path), "saved": self.deck_path.exists(),
                "motif_cards": len(cards), "of": MOTIF_CARD_COUNT, "partial": len(cards) < MOTIF_CARD_COUNT,
                "bonus_cards": len(data.get("bonus_cards", [])), "warnings": warnings,
                "dice_colours": list(data.get("dice_colours", [])), "backgrounds": list(BACKGROUNDS),
                "cards": [{"id": c["id"], "words": card_words(c)} for c in cards],
                "bonus": [{"id": b["id"], "words": f"{b['id']}: {', '.join(b['requires'])} -> {b['reward']} gold"}
                          for b in data.get("bonus_cards", [])]}

    def read_card(self) -> dict[str, Any]:
        """The card on player 1's first card spot in the latest frame, as the deck entry it would be (with the
        id it would get) and the doubts the owner should check before adding it. Nothing is saved."""
        from device.deck import card_words, next_id, read_enrolment, read_file

        shot = self.hub.frame()
        if shot is None:
            raise ValueError("no camera frame yet: lay player 1's mat under the camera with the card on its first "
                             "card spot")
        got = read_enrolment(shot.image, "?")
        entry = dict(got.entry)
        entry["id"] = next_id(read_file(self.deck_path), str(entry["background"]))
        return {"entry": entry, "words": card_words(entry), "doubts": list(got.doubts), "sure": got.sure}

    def add_card(self, entry: Any) -> dict[str, Any]:
        """Add the owner's checked ``entry`` (a card as :meth:`read_card` gave it, fixed on the page) to the deck;
        its id is the next free one for its background. A ValueError names every problem the validator finds."""
        from device.deck import add_card, next_id, read_file, write_file
        from engine.dicetreasure.cards import BACKGROUNDS

        if not isinstance(entry, dict) or not isinstance(entry.get("spaces"), list):
            raise ValueError("'card' must be a card as read: background, coins and its spaces")
        fields = {k: entry[k] for k in ("background", "coins", "spaces") if k in entry}
        if fields.get("background") not in BACKGROUNDS:  # said before it names an id
            raise ValueError(f"background {fields.get('background')!r} is not one of {', '.join(BACKGROUNDS)}")
        data = read_file(self.deck_path)
        card = {"id": next_id(data, str(fields.get("background"))), **fields}
        problems = add_card(data, card)
        if problems:
            raise ValueError("not added: " + "; ".join(problems[:4]))
        write_file(self.deck_path, data)
        return {**self.deck(), "added": card["id"]}

    def add_bonus(self, requires: Any, reward: Any) -> dict[str, Any]:
        """Add a leprechaun bonus card as the owner typed it (the camera does not read them): the background
        colours it requires ("any" for any) and the gold it gives."""
        from device.deck import add_bonus, read_file, write_file

        if not isinstance(requires, list) or not all(isinstance(r, str) for r in requires) or not requires:
            raise ValueError("'requires' must list the colours the card requires (a background colour or 'any')")
        if isinstance(reward, bool) or not isinstance(reward, int):
            raise ValueError("'reward' must be the gold the card gives (a whole number)")
        data = read_file(self.deck_path)
        card = add_bonus(data, requires, reward)
        write_file(self.deck_path, data)
        return {**self.deck(), "added": card}

    def remove_card(self, card_id: str) -> dict[str, Any]:
        """Take a card enrolled by mistake out of the deck, a motif card or a leprechaun card (the deck is
        partial again)."""
        from device.deck import read_file, write_file
        from engine.dicetreasure.cards import MOTIF_CARD_COUNT

        data = read_file(self.deck_path)
        motif = [c for c in data["motif_cards"] if c.get("id") != card_id]
        bonus = [b for b in data.get("bonus_cards", []) if b.get("id") != card_id]
        if len(motif) == len(data["motif_cards"]) and len(bonus) == len(data.get("bonus_cards", [])):
            raise ValueError(f"no card {card_id!r} in the deck")
        data["motif_cards"], data["bonus_cards"] = motif, bonus
        data["partial"] = len(motif) < MOTIF_CARD_COUNT or len(bonus) != 21
        write_file(self.deck_path, data)
        return {**self.deck(), "removed": card_id}
