// The Pyradice view: the table as the engine holds it, drawn from the adapter's view (game.live, kind
// "pyradice"): the quarry as three layers in SVG (upper layers offset by half a die, as they rest on four dice;
// available dice highlighted, dice not seen yet marked "?"), each player's pyramid with the objective token per
// level (met / possible / impossible) and the skill per level, the die in hand with its legal slots glowing,
// the skill step (a skill the camera saw waits for CONFIRM), the four objective cards with each player's
// points, and the live totals. Below it the generic view: the legal actions as buttons, the chance box
// (the roll-off), the score breakdown. Nothing here composes engine notation or decides a rule.

import {counted, dieFace, dieWords, parseDie, row, svg, tableView} from "./draw.js";

/** Die body colours on the page (the four Pyradice colours) and the pip colour that reads on each. */
const BODY = {white: "#f4f1ea", gray: "#9b9b9b", maroon: "#7a2430", orange: "#e88a2e"};
const INK = {white: "#222", gray: "#111", maroon: "#f4f1ea", orange: "#222"};
const CELL = 26; // px per die in the drawings

function dieGroup(x, y, size, text, cls, title) {
  const g = svg("g", {class: cls, transform: `translate(${x},${y})`});
  const die = parseDie(text);
  dieFace(g, size, die ? die.value : "?", {fill: die ? (BODY[die.colour] || "#ccc") : "#d8d4cc", stroke: "#333",
    strokeWidth: 1, ink: die ? (INK[die.colour] || "#111") : "#555"});
  if (title) g.appendChild(svg("title", {}, title));
  return g;
}

function build(card, el) {
  const hand = el("p", {id: "pyradice-hand", class: "status"});
  card.appendChild(hand);
  const skill = el("div", {id: "pyradice-skill"});
  card.appendChild(skill);
  const quarryBox = el("figure", {id: "pyradice-quarry"});
  quarryBox.appendChild(el("figcaption", {}, "Quarry (available dice outlined)"));
  const quarry = svg("svg", {id: "quarry-svg", role: "img", "aria-label": "the quarry, three layers"});
  quarryBox.appendChild(quarry);
  card.appendChild(quarryBox);
  const pyramids = el("div", {id: "pyradice-pyramids", class: "pyramids"});
  card.appendChild(pyramids);
  const cards = el("table", {id: "pyradice-cards"});
  const wrap = el("div", {class: "scroll"});
  wrap.appendChild(cards);
  card.appendChild(el("h3", {}, "Objective cards"));
  card.appendChild(wrap);
  return {hand, skill, quarry, pyramids, cards};
}

function drawQuarry(live, parts) {
  const q = parts.quarry;
  q.replaceChildren();
  const [rows, cols] = live.layers[0];
  const width = cols * CELL + 4, height = rows * CELL + 4;
  q.setAttribute("viewBox", `0 0 ${width} ${height}`);
  q.setAttribute("width", String(width * 1.4));
  q.setAttribute("height", String(height * 1.4));
  const byLayer = [[], [], []];
  for (const d of live.quarry) byLayer[d.layer].push(d);
  for (let layer = 0; layer < 3; layer++) {
    const g = svg("g", {class: `layer layer-${layer}`, "data-layer": layer});
    for (const d of byLayer[layer]) {
      // A die of layer L rests on four dice: drawn half a die in and down, slightly smaller, over them.
      const x = 2 + (d.col + layer / 2) * CELL, y = 2 + (d.row + layer / 2) * CELL;
      const cls = ["qdie", d.available ? "available" : "", d.known ? "" : "unknown", d.covered ? "covered" : ""]
        .filter(Boolean).join(" ");
      const node = dieGroup(x, y, CELL, d.die, cls,
        `${d.position}: ${d.die || "not seen yet"}${d.available ? " (available)" : ""}`);
      node.setAttribute("data-position", d.position);
      if (d.available) {
        node.insertBefore(svg("rect", {x: -1, y: -1, width: CELL + 2, height: CELL + 2, rx: 5, fill: "none",
          stroke: "#1a7f37", "stroke-width": 3, class: "glow"}), node.firstChild);
      }
      g.appendChild(node);
    }
    q.appendChild(g);
  }
}

const RESULT_MARK = {met: "✓", possible: "…", impossible: "✗"};

function drawPyramid(player, live, el) {
  const box = el("figure", {class: `pyramid${player.to_move ? " to-move" : ""}`, "data-player": player.name});
  const head = `${player.name} · ${player.total} VP · ${counted(player.tokens_met, "token")}`
    + (player.reserve ? ` · reserve ${dieWords(player.reserve)}` : "");
  box.appendChild(el("figcaption", {}, head));
  const width = 6 * CELL + 2 * 70, height = 6 * CELL + 4;
  const s = svg("svg", {viewBox: `0 0 ${width} ${height}`, width, height, role: "img",
    "aria-label": `${player.name}'s pyramid`});
  const legal = new Set(player.to_move ? live.legal_slots : []);
  for (let level = 1; level <= 6; level++) {
    const y = 2 + (6 - level) * CELL;
    for (let i = 0; i <= 6 - level; i++) {
      const slot = `${level},${i}`;
      const x = 70 + (i + (level - 1) / 2) * CELL;
      const die = player.pyramid[slot];
      if (die) {
        const g = dieGroup(x, y, CELL, die, `pdie${live.placed === slot && player.to_move ? " placed" : ""}`,
          `${slot}: ${die}`);
        g.setAttribute("data-slot", slot);
        s.appendChild(g);
      } else {
        s.appendChild(svg("rect", {x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, rx: 3,
          fill: legal.has(slot) ? "#c9f2d2" : "none", stroke: legal.has(slot) ? "#1a7f37" : "#999",
          "stroke-width": legal.has(slot) ? 2.5 : 1, "stroke-dasharray": legal.has(slot) ? "" : "3 2",
          class: legal.has(slot) ? "slot legal" : "slot", "data-slot": slot}));
      }
    }
    const lv = player.levels[level - 1];
    if (lv.objective) {
      const t = svg("text", {x: 4, y: y + CELL / 2 + 5, "font-size": 12, class: `objective ${lv.result}`,
        "data-level": level, "data-result": lv.result}, `${lv.objective} ${RESULT_MARK[lv.result] || ""}`);
      t.appendChild(svg("title", {}, `${lv.objective}: ${lv.objective_text} (${lv.result})`));
      s.appendChild(t);
    }
    if (lv.skill) {
      const t = svg("text", {x: width - 40, y: y + CELL / 2 + 5, "font-size": 12, class: "skill",
        "data-level": level}, lv.skill);
      t.appendChild(svg("title", {}, `${lv.skill}: ${lv.skill_text}`));
      s.appendChild(t);
    }
  }
  box.appendChild(s);
  return box;
}

function drawCards(live, parts, el) {
  const t = parts.cards;
  t.replaceChildren();
  const each = (cell) => live.players.map(cell);
  t.appendChild(row(el, {}, [["th", {}, "Card"], ...each((p) => ["th", {"data-player": p.name}, p.name])]));
  for (const c of live.cards) {
    // The card's disc (an SVG circle: the page's CSP allows no inline styles).
    const disc = svg("svg", {width: 14, height: 14, viewBox: "0 0 14 14", class: "disc", "aria-label": `${c.colour} disc`});
    disc.appendChild(svg("circle", {cx: 7, cy: 7, r: 6, fill: BODY[c.colour] || "#ccc", stroke: "#333"}));
    t.appendChild(row(el, {"data-card": c.title}, [
      ["th", {scope: "row", title: c.text || ""}, [disc, ` ${c.title} (${c.colour})`]],
      ...each((p) => ["td", {class: "num"}, p.cards[c.title] ?? ""])]));
  }
  t.appendChild(row(el, {class: "total"}, [["th", {scope: "row"}, "Total (tokens and cards)"],
    ...each((p) => ["td", {class: "num", "data-player": p.name}, p.total])]));
}

function drawHand(live, parts, el) {
  const mover = live.players.find((p) => p.to_move);
  if (live.winners && live.winners.length) {
    parts.hand.textContent = `Game over: ${live.winners.join(" and ")} (most points, then most objective tokens).`;
  } else if (live.hand) {
    parts.hand.textContent = `${mover ? mover.name : "The player"} holds ${dieWords(live.hand)}: it may go on `
      + `${live.legal_slots.join(", ")} (glowing).`;
  } else if (mover && live.legal_slots.length) {
    parts.hand.textContent = `${mover.name} takes an available die (outlined); open slots: ${live.legal_slots.join(", ")}.`;
  } else {
    parts.hand.textContent = "";
  }
  parts.skill.replaceChildren();
  const step = live.skill_step;
  if (step) {
    parts.skill.appendChild(el("p", {}, `Skill step (level ${step.level}: ${step.codes.join(" or ")}), `
      + `${counted(step.uses, "legal use")}. NEXT: no skill.`));
    if (step.seen) {
      const p = el("p", {class: "warning", id: "pyradice-seen"},
        `Seen on the table: ${step.seen.words}. CONFIRM if the skill was used; if not, correct the die.`);
      parts.skill.appendChild(p);
    }
  }
}

function draw(live, parts, {el}) {
  drawQuarry(live, parts);
  parts.pyramids.replaceChildren();
  for (const p of live.players) parts.pyramids.appendChild(drawPyramid(p, live, el));
  drawCards(live, parts, el);
  drawHand(live, parts, el);
}

// The camera's readings in the adapter's order (every board's slots, the quarry's positions, the reserves), so
// that a correction names the reading by its index.
const COLOURS = Object.keys(BODY);

function readingItems(s) {
  const seen = (s.table && s.table.seen) || {};
  const names = (s.game && s.game.players) || [];
  const corrected = new Set((seen.corrections || []).map((c) => c.index));
  const items = [];
  const add = (words, r) => {
    const index = items.length;
    const die = r.die ? `${r.die.colour} ${r.die.value}` : r.occupied === false || r.state === "empty" ? "empty" : "a die";
    items.push({index, words: `${words}: ${die}${r.reason ? ` (${r.reason})` : ""}`, unsure: !!r.unsure && !seen.confirmed,
      corrected: corrected.has(index), colour: r.die ? r.die.colour : null});
  };
  for (const b of seen.boards || []) for (const sl of b.slots) add(`${names[b.seat - 1] || `player ${b.seat}`}'s slot ${sl.slot}`, sl);
  for (const p of (seen.quarry && seen.quarry.positions) || []) add(`quarry ${p.position}`, p);
  for (const r of seen.reserves || []) add(`${names[r.seat - 1] || `player ${r.seat}`}'s reserve`, r);
  return items;
}

export const {mount, render} = tableView("pyradice", build, draw, {items: readingItems, colours: () => COLOURS});
