"""Deck enrolment (``companion deck``): an enrolment recording (cards shown one by one on player 1's first card
spot, rendered from the stand-in deck) rebuilds the deck file exactly; partial decks are saved, marked and
playable; the owner fixes a field on the command line; leprechaun cards get ids of their own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from device.cli import main
from device.deck import add_card, apply_fix, enrol_cards, read_file, recording_stills
from device.errors import UsageError
from device.record_dicetreasure import make_enrolment
from engine.dicetreasure import GAME, load_deck, new_game, sample_deck
from engine.dicetreasure.cards import deck_warnings
from vision.dicetreasure_read import canonical_entry

#: The stand-in's red cards in deck order (four three-space, three four-space, two five-space cards); every fifth
#: lies upside down.
CARDS = tuple(f"red-{n}" for n in range(1, 10))


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("enrol") / "rec"
    deck = sample_deck()
    make_enrolment(out, 6101, [deck.card(c) for c in CARDS])  # seed 6101: never used before
    return out


def test_an_enrolment_recording_rebuilds_the_deck_file_exactly(recording: Path, tmp_path: Path) -> None:
    deck_file = tmp_path / "mine.json"
    assert main(["deck", "enrol", "--recording", str(recording), "--deck", str(deck_file), "--yes"]) == 0
    data = json.loads(deck_file.read_text(encoding="utf-8"))
    stand_in = sample_deck()
    assert data["motif_cards"] == [canonical_entry(stand_in.card(c)) for c in CARDS]
    assert data["partial"] is True
    deck = load_deck(deck_file)  # the validator accepts it as a partial deck
    assert deck.partial and len(deck.motif_cards) == len(CARDS)
    assert any("partial: 9 of 63 motif cards (54 still to enrol)" in w for w in deck_warnings(deck))
    # Playable for what it has, with the leprechaun cards off (none enrolled).
    state = new_game(["Ann", "Bob"], deck, {"leprechauns": "off"})
    assert len(state.draw_pile) == len(CARDS) and GAME.status(state).awaiting == "chance"
    # Another sitting adds to the same file; the same red cards again would make more red cards than a box has,
    # so the validator refuses each of them and the file keeps its nine.
    assert main(["deck", "enrol", "--recording", str(recording), "--deck", str(deck_file), "--yes"]) == 0
    assert json.loads(deck_file.read_text(encoding="utf-8"))["motif_cards"] == data["motif_cards"]


def test_the_owner_fixes_or_skips_a_card_on_the_command_line(recording: Path, tmp_path: Path) -> None:
    images = list(recording_stills(recording))
    assert len(images) == len(CARDS)  # one still table per card laid
    data = read_file(tmp_path / "new.json")
    # Card 1 (red-1, worth 1): the owner says it is purple, then wrongly worth 3 (the validator refuses a 3-space
    # card worth 3), then worth 1 again, and accepts; card 2 is skipped.
    answers = iter(["background=purple", "coins=3", "", "coins=1", "", "s"])
    said: list[str] = []
    added, skipped = enrol_cards(images[:2], data, accept_sure=False, ask=lambda _: next(answers),
                                 say=said.append)
    assert (added, skipped) == (1, 1)
    assert any("not added" in s and "a card worth 3 coin(s) has 5" in s for s in said)
    [card] = data["motif_cards"]
    assert card["id"] == "purple-1" and card["background"] == "purple" and card["coins"] == 1
    assert card["spaces"] == canonical_entry(sample_deck().card("red-1"))["spaces"]
    with pytest.raises(UsageError, match="fix one field"):
        apply_fix(card, "size=3")


def test_the_validator_checks_each_card_added_and_bonus_ids_do_not_collide(tmp_path: Path) -> None:
    data = read_file(tmp_path / "d.json")
    entry = canonical_entry(sample_deck().card("red-1"))
    assert add_card(data, entry) == []
    problems = add_card(data, {**entry, "spaces": entry["spaces"][:2]})
    assert problems and "has 2 spaces, a card worth 1 coin(s) has 3" in problems[0]
    assert len(data["motif_cards"]) == 1
    from device.deck import write_file

    write_file(tmp_path / "d.json", data)
    assert main(["deck", "bonus", "--deck", str(tmp_path / "d.json"), "--requires", "red,blue,any",
                 "--reward", "2"]) == 0
    deck = load_deck(tmp_path / "d.json")
    assert [b.id for b in deck.bonus_cards] == ["leprechaun-1"]
    assert not any("also motif card ids" in w for w in deck_warnings(deck))
    assert any("also motif card ids" in w for w in deck_warnings(sample_deck()))  # the stand-in's red-1
    assert main(["deck", "check", str(tmp_path / "d.json")]) == 0
    assert main(["deck", "show", str(tmp_path / "d.json")]) == 0
