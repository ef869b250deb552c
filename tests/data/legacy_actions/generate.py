"""How these files were made (kept for the record; run with the code of commit 5f3dac8, not today's)."""
import collections
import json
import random
from pathlib import Path

from engine import find_game
from engine.simulate import play

cases = {
    "pasa": [(["ana", "ben"], 3, {})],
    "pyradice": [(["ana", "ben"], 7, {}), (["ana", "ben"], 0, {})],
    "pyramido": [(["Ann", "Bob"], 3, {}), (["Ann"], 4, {"legend": "the-legend"})],
    "dicetreasure": [(["Ann", "Bob"], 3, {}), (["Ann"], 2, {})],
}
for name, runs in cases.items():
    g = find_game(name)
    out = {"game": name,
           "why": "actions as the event log stored them (Game.action_to_json) before the one tagged codec of "
                  "engine.serial; made by the code of commit 5f3dac8 from "
                  "engine.simulate.play(game, players, seed, options)",
           "games": []}
    for players, seed, options in runs:
        p = play(g, players, seed, options=options)
        kinds = collections.Counter(type(a).__name__ for a in p.actions)
        samples = []
        seen = collections.Counter()
        for i, a in enumerate(p.actions):
            k = type(a).__name__
            if seen[k] < 3:
                seen[k] += 1
                samples.append({"index": i, "json": g.action_to_json(a), "text": g.action_text(a)})
        out["games"].append({"players": players, "seed": seed, "options": options, "kinds": dict(sorted(kinds.items())),
                             "setup_seed": random.Random(seed).randrange(2**32),
                             "actions": [g.action_to_json(a) for a in p.actions],
                             "final_totals": g.score(p.final).totals(), "samples": samples})
        print(name, players, len(p.actions), dict(kinds))
    if name == "pasa":
        s = g.initial_state(["ana"])
        a = g.parse_action("enter twos 4", s)
        out["extra"] = [{"json": g.action_to_json(a), "text": g.action_text(a)}]
    text = json.dumps(out, indent=1, ensure_ascii=False)
    Path(f"tests/data/legacy_actions/{name}.json").write_text(text + "\n", encoding="utf-8")
    print(name, len(text))
