"""Pyramido: Forgotten Treasures (Kwon & Brière, Synapses 2025): rules engine, following RULES.md section 2.

What the rest of the project uses:

* :func:`legal_placements` (pyramid, domino): every legal position and turn for the current stage;
* :func:`areas` (pyramid): each area's colour, quarter cells and visible gem icon count;
* :func:`best_activation` (areas, inventory): the activation that scores the most this stage, and its points;
* the game itself, registered as ``"pyramido"`` (:class:`engine.pyramido.game.Pyramido`), with solo play
  against the Legend;
* :func:`explain_placement`: which legal placement explains a camera's before/after top view, or why none does
  (ambiguous, invisible, unknown cells; :func:`explain_first_placement` for a first domino anywhere).

Modules, in the shape of every game package: ``state`` (states and actions), ``game`` (turns, stages, scores),
``observe`` (the camera's view), ``words`` (actions in words); and its own: ``dominoes`` (colours, gems, blocks,
dominoes, decks), ``geometry`` (pyramids and placements), ``areas`` (top view and areas), ``activation`` (gem
activation and the optimiser), ``exploration`` (the 5 spaces), ``legend`` (the Legend's search), ``cli`` (the
``companion pyramido`` extras) and ``bench``.
"""

from engine.pyramido.activation import (
    MIXES,
    ActivationResult,
    AreaActivation,
    best_activation,
    score_activation,
)
from engine.pyramido.areas import Area, areas, areas_of_view
from engine.pyramido.dominoes import (
    COLOURS,
    GEMS,
    Back,
    Block,
    Colour,
    Domino,
    Gem,
    Gems,
    generate_deck,
    parse_back,
    parse_domino,
    parse_gems,
)
from engine.pyramido.game import LEGEND, Pyramido, PyramidoState
from engine.pyramido.geometry import Direction, Placement, Pyramid, has_room, legal_placements
from engine.pyramido.legend import legend_search
from engine.pyramido.observe import explain_first_placement, explain_placement, invisible_placements

__all__ = [
    "COLOURS",
    "GEMS",
    "LEGEND",
    "MIXES",
    "ActivationResult",
    "Area",
    "AreaActivation",
    "Back",
    "Block",
    "Colour",
    "Direction",
    "Domino",
    "Gem",
    "Gems",
    "Placement",
    "Pyramid",
    "Pyramido",
    "PyramidoState",
    "areas",
    "areas_of_view",
    "best_activation",
    "explain_first_placement",
    "explain_placement",
    "generate_deck",
    "has_room",
    "invisible_placements",
    "legal_placements",
    "legend_search",
    "parse_back",
    "parse_domino",
    "parse_gems",
    "score_activation",
]
