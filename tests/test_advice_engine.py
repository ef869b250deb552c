"""The "Hint" (engine/advice.py and each game's advice.py): playout rankings with common random numbers.

The machinery is checked on a toy decision whose values are known exactly; each game's hint is checked against
truths worked out without it: Pyramido's last placement of a game against every placement's exact final score
(nothing random can change it), Pyradice and Dice Treasure against long runs of independent playouts on seeds the
hint does not use, the activation against the optimiser. Deterministic for a seed and a number of playouts; the
time budget is kept (after the first round, which always runs).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

from engine.advice import margin, rank, ranked_options, round_rng
from engine.game import Game, find_game
from engine.simulate import play

# --- the machinery -------------------------------------------------------------------------------------------


def toy_rank(**kw: Any) -> Any:
    """Three options worth 1, 3 and 2 on average, with noise that every option meets alike (common numbers)."""
    means = {"a": 1.0, "b": 3.0, "c": 2.0}

    def after(state: Any, option: str, rng: random.Random) -> Any:
        return option

    def playout(state: str, rng: random.Random) -> Any:
        return (state, rng.gauss(0, 5))

    def value(final: Any) -> tuple[float, float]:
        option, noise = final
        return means[option] + noise, means[option] + noise

    return rank(None, ["a", "b", "c"], after=after, playout=playout, value=value, **kw)


def test_common_random_numbers_rank_exactly_despite_the_noise() -> None:
    r = toy_rank(seed=1, playouts=3)
    assert r.rounds == 3 and r.playouts == (3, 3, 3)
    # every option met the same noise, so the means differ by exactly the true differences
    assert r.means[1] - r.means[0] == pytest.approx(2.0) and r.means[2] - r.means[0] == pytest.approx(1.0)
    assert [r.options[i] for i in r.order()] == ["b", "c", "a"]


def test_deterministic_for_a_seed_and_a_number_of_playouts() -> None:
    assert toy_rank(seed=7, playouts=5).means == toy_rank(seed=7, playouts=5).means
    assert toy_rank(seed=7, playouts=5).means != toy_rank(seed=8, playouts=5).means
    assert round_rng(3, 2).random() == round_rng(3, 2).random() != round_rng(3, 1).random()


class FakeClock:
    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_the_budget_decides_whole_rounds_and_a_cut_round_is_dropped() -> None:
    # Each clock reading advances 10 ms: a round of 3 playouts takes about 30 ms.
    r = toy_rank(seed=1, budget_s=0.1, clock=FakeClock(0.01), reject=False)
    assert 1 <= r.rounds <= 4 and len(set(r.playouts)) == 1
    assert r.playouts[0] == r.rounds
    # A budget smaller than one round still gives one round (a hint always has something to say).
    one = toy_rank(seed=1, budget_s=0.001, clock=FakeClock(0.01))
    assert one.rounds == 1 and one.playouts == (1, 1, 1)
    # The same number of rounds gives the same answer, whatever the clock did.
    assert toy_rank(seed=1, playouts=r.rounds, reject=False).means == r.means


def test_an_option_clearly_behind_stops_being_played_out() -> None:
    # With common random numbers the toy's differences are exact: after 4 rounds the worst option is left.
    r = toy_rank(seed=1, playouts=10)
    assert r.playouts == (4, 10, 10) and [r.options[i] for i in r.order()] == ["b", "c", "a"]
    assert toy_rank(seed=1, playouts=10, reject=False).playouts == (10, 10, 10)


def test_width_plays_out_only_the_best_by_prior_and_lists_the_rest_after() -> None:
    r = toy_rank(seed=2, playouts=2, prior=lambda s, o: {"a": 0.0, "b": 5.0, "c": 4.0}[o], width=2)
    assert r.playouts == (0, 2, 2)
    options = ranked_options(r, lambda o: (o, f"option {o}", "toy"))
    assert [o.text for o in options] == ["b", "c", "a"] and options[-1].playouts == 0 and options[-1].prior == 0.0


def test_margin() -> None:
    assert margin([10, 7, 12], 0) == -2 and margin([10, 7, 12], 2) == 2 and margin([9], 0) == 9


# --- helpers for the games ---------------------------------------------------------------------------------------


def decisions(game: Game[Any, Any], seed: int, players: int = 2) -> list[Any]:
    """Every state of one seeded game (the game's own playout policy) where a decision is awaited."""
    policy = game.playout_policy() or (lambda s, legal, rng: rng.choice(legal))
    states = play(game, game.default_players(players), seed, policy=policy).states
    return [s for s in states if game.status(s).awaiting == "decision"]


def long_run(state: Any, module: Any, options: list[Any], n: int, seed: int) -> list[float]:
    """Each option's mean value over ``n`` independent playouts (generators the hint never uses)."""
    out = []
    value = module._value_for(_seat(state))
    for option in options:
        total = 0.0
        for k in range(n):
            rng = random.Random(f"truth:{seed}:{k}:{option}")
            total += value(module.playout_to(True)(module._after(state, option, rng), rng)
                           if hasattr(module, "playout_to") else module.playout(module._after(state, option, rng),
                                                                                rng))[1]
        out.append(total / n)
    return out


def _seat(state: Any) -> int:
    if hasattr(state, "active"):
        return int(state.active)
    if hasattr(state, "explorers"):
        seat = find_game("pyramido").to_move(state)  # type: ignore[attr-defined]
        assert seat is not None
        return int(seat)
    return int(state.turn)


def hinted(game: Game[Any, Any], states: list[Any], start: float) -> Any:
    """The first state from ``start`` (a fraction of the game) on with a choice the game gives a hint for."""
    return next(s for s in states[int(len(states) * start):]
                if len(game.legal_actions(s)) > 1 and game.advise(s, playouts=1) is not None)


def same_hint(a: Any, b: Any) -> bool:
    ja, jb = a.to_json(), b.to_json()
    ja.pop("elapsed_ms"), jb.pop("elapsed_ms")
    return bool(ja == jb)


GAMES = ["pyradice", "pyramido", "dicetreasure"]


@pytest.mark.parametrize("name", GAMES)
def test_deterministic_and_complete_for_a_seed(name: str) -> None:
    game = find_game(name)
    state = hinted(game, decisions(game, 11), 1 / 3)
    first = game.advise(state, seed=5, playouts=2)
    again = game.advise(state, seed=5, playouts=2)
    assert first is not None and again is not None and same_hint(first, again)
    legal = {game.describe(state, a).text for a in game.legal_actions(state)}
    shown = [o.text for o in first.options]
    assert len(shown) == len(set(shown)) and set(shown) <= legal
    if first.rounds:
        assert first.rounds == 2 and all(o.playouts in (0, 2) for o in first.options)
        played = [o.value for o in first.options if o.playouts]
        assert played == sorted(played, reverse=True)


@pytest.mark.parametrize("name", GAMES)
def test_no_hint_when_chance_is_awaited_or_the_game_is_over(name: str) -> None:
    game = find_game(name)
    policy = game.playout_policy() or (lambda s, legal, rng: rng.choice(legal))
    states = play(game, game.default_players(2), 12, policy=policy).states
    chance = next(s for s in states if game.status(s).awaiting == "chance")
    assert game.advise(chance) is None
    assert game.status(states[-1]).finished and game.advise(states[-1]) is None


@pytest.mark.parametrize("name", GAMES)
def test_the_budget_is_kept(name: str) -> None:
    game = find_game(name)
    state = hinted(game, decisions(game, 13), 1 / 2)  # advised once: caches warm, as at a running table
    advice = game.advise(state, seed=0, budget_s=0.05)
    assert advice is not None
    if advice.rounds:
        one_round = advice.elapsed_ms / advice.rounds
        # a round is begun only if it would end in time: one round past the budget at most (load spikes aside)
        assert advice.rounds >= 1 and advice.elapsed_ms <= 50 + 3 * one_round + 50


def test_pasa_hints_with_its_exact_advisor() -> None:
    from engine.pasa.advice import get_advisor

    game = find_game("pasa")
    state = game.initial_state(game.default_players(1))
    assert game.advise(state) is None  # a roll is awaited
    state = game.apply(state, game.random_chance(state, random.Random(3)))
    hint = game.advise(state)
    assert hint is not None and all(o.exact and o.playouts == 0 for o in hint.options)
    assert {o.text for o in hint.options} == {a.text for a in game.legal(state)}
    best = get_advisor(state.rule).advise(state)
    assert hint.options[0].text == best["best"] and hint.options[0].value == pytest.approx(best["expected_final"])


# --- rankings against truths worked out otherwise ------------------------------------------------------------


def test_pyramido_last_placement_ranks_by_the_exact_final_score() -> None:
    """At a player's last placement of the game nothing random changes their own final score, and with common
    random numbers the other players play the same whatever the placement: the ranking must be exact."""
    from engine.pyramido import advice
    from engine.pyramido.activation import best_activation
    from engine.pyramido.areas import areas
    from engine.pyramido.state import Phase

    game = find_game("pyramido")
    checked = 0
    for seed in (21, 22, 23):
        states = decisions(game, seed)
        for seat in (0, 1):
            mine = [s for s in states if s.phase is Phase.PLACE and s.stage == 4
                    and game.to_move(s) == seat]  # type: ignore[attr-defined]
            state = mine[-1]  # this player's last placement of the game
            e = state.explorers[seat]
            legal = game.legal_actions(state)
            if len(legal) < 2:
                continue
            exact = {game.describe(state, p).text: sum(e.stage_scores) + best_activation(
                areas(e.pyramid.place(state.holding, p.placement)), e.inventory).points for p in legal}
            hint = advice.advise(state, seed=seed, playouts=2)
            assert hint is not None
            assert exact[hint.options[0].text] == max(exact.values())
            for o in hint.options:
                if o.playouts:
                    assert o.score == pytest.approx(exact[o.text])
            checked += 1
    assert checked >= 2


def test_pyramido_activation_is_the_optimisers() -> None:
    from engine.pyramido.state import Phase

    game = find_game("pyramido")
    state = next(s for s in decisions(game, 24) if s.phase is Phase.SCORE
                 and not s.explorers[game.to_move(s)].activated  # type: ignore[attr-defined]
                 and len(s.explorers[game.to_move(s)].stage_scores) < s.stage)  # type: ignore[attr-defined]
    hint = game.advise(state)
    assert hint is not None and hint.measure == "points"
    best = game.advice(state)  # type: ignore[attr-defined]
    assert hint.extra["points"] == best.points and hint.extra["activation"] == [str(a) for a in best.activations]
    assert hint.extra["actions"][-1] == "end" and hint.options[0].text == hint.extra["actions"][0]


def _agrees_with_long_run(name: str, pick: Callable[[list[Any]], list[Any]], n: int, hint_playouts: int) -> None:
    module = __import__(f"engine.{name}.advice", fromlist=["advise"])
    game = find_game(name)
    checked: list[float] = []
    for seed, state in pick([]):
        hint = module.advise(state, seed=seed, playouts=hint_playouts)
        assert hint is not None
        legal = [a for a in game.legal_actions(state)
                 if game.describe(state, a).text in {o.text for o in hint.options if o.playouts}]
        truth = dict(zip((game.describe(state, a).text for a in legal), long_run(state, module, legal, n, seed),
                         strict=True))
        # The hint's choice is the long run's best, or a near tie with it: within one point (a VP, a gold) of
        # margin, about what the hint's own playouts can tell apart (their standard errors are 0.3 to 0.8).
        assert truth[hint.options[0].text] >= max(truth.values()) - 1.0, (seed, hint.options[0].text, truth)
        checked.append(max(truth.values()) - min(truth.values()))
    assert max(checked) > 1.0  # at least one position where the choice matters by more than the tolerance


def test_pyradice_ranking_agrees_with_long_runs_late_in_the_game() -> None:
    from engine.pyradice.state import Phase

    game = find_game("pyradice")

    def pick(_: list[Any]) -> list[Any]:
        out = []
        for seed in (31, 32, 33):
            late = [s for s in decisions(game, seed) if s.phase is Phase.PLACE and len(s.mover.pyramid) >= 16
                    and len(game.legal_actions(s)) >= 2]
            out.append((seed, late[0]))
        return out

    _agrees_with_long_run("pyradice", pick, 150, 60)


def test_dicetreasure_ranking_agrees_with_long_runs_late_in_a_round() -> None:
    from engine.dicetreasure.state import Phase

    game = find_game("dicetreasure")

    def pick(_: list[Any]) -> list[Any]:
        out = []
        for seed in (41, 42):
            late = [s for s in decisions(game, seed) if s.phase is Phase.TURN and s.cycle >= s.turns - 1
                    and 2 <= len([a for a in game.legal_actions(s) if type(a).__name__ != "Exchange"]) <= 8]
            out.append((seed, late[0]))
        return out

    _agrees_with_long_run("dicetreasure", pick, 120, 40)


def test_the_benchmark_prints_its_figures(capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from engine import bench_advice

    args = argparse.Namespace(repeat=1, game=["pyradice"], positions=1, budget=0.05, games=1, playouts=1)
    assert bench_advice.run(args) == 0
    out = capsys.readouterr().out
    assert "pyradice: median" in out and "playouts per option median" in out
    assert "against the playout policy, 1 games" in out and "win rate" in out


def test_pyradice_hint_at_a_camera_table_draws_the_covered_dice_it_has_not_seen() -> None:
    from engine.pyradice.game import random_board, random_cards, setup
    from engine.pyradice.quarry import Quarry

    rng = random.Random(51)
    full = Quarry.random(2, rng)
    seen = Quarry.seen_at_setup(2, {p: d for p, d in full.dice.items() if not full.covered(p)})
    assert seen.unknown
    state = setup(["ana", "ben"], quarry=seen, board=random_board(rng), cards=random_cards(rng), first="ana")
    game = find_game("pyradice")
    hint = game.advise(state, seed=1, playouts=3)
    assert hint is not None and hint.rounds == 3
    assert {o.text for o in hint.options} == {f"take q{p[0]},{p[1]},{p[2]}" for p in seen.known_available()}
    assert same_hint(hint, game.advise(state, seed=1, playouts=3))  # hidden dice drawn from the seed alone
