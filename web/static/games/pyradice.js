// The Pyradice view: the table as the engine holds it, drawn from the adapter's view (game.live, kind
// "pyradice"): the quarry as three layers in SVG (upper layers offset by half a die, as they rest on four dice;
// available dice highlighted, dice not seen yet marked "?"), each player's pyramid with the objective token per
// level (met / possible / impossible) and the skill per level, the die in hand with its legal slots glowing,
// the skill step (a skill the camera saw waits for CONFIRM), the four objective cards with each player's
// points, and the live totals. Below it the generic view: the legal actions as buttons, the chance box
// (the roll-off), the score breakdown. Nothing here composes engine notation or decides a rule.

import * as generic from "./generic.js";

const SVG = "http://www.w3.org/2000/svg";
/** Die body colours on the page (the four Pyradice colours) and the pip colour that reads on each. */
const BODY = {white: "#f4f1ea", gray: "#9b9b9b", maroon: "#7a2430", orange: "#e88a2e"};
const INK = {white: "#222", gray: "#111", maroon: "#f4f1ea", orange: "#222"};
const CELL = 26; // px per die in the drawings

let parts = null;

function svg(tag, attrs = {}, text = "") {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    node.setAttribute(k, String(v));
  }
  if (text !== "") node.textContent = String(text);
  return node;
}

function parseDie(text) {
  if (!text) return null;
  const [colour, value] = String(text).split(":");
  return {colour, value};
}

function dieGroup(x, y, size, text, cls, title) {
  const g = svg("g", {class: cls, transform: `translate(${x},${y})`});
  const die = parseDie(text);
  g.appendChild(svg("rect", {x: 1, y: 1, width: size - 2, height: size - 2, rx: 4,
    fill: die ? (BODY[die.colour] || "#ccc") : "#d8d4cc", stroke: "#333", "stroke-width": 1}));
  g.appendChild(svg("text", {x: size / 2, y: size / 2 + 5, "text-anchor": "middle", "font-size": 14,
    fill: die ? (INK[die.colour] || "#111") : "#555"}, die ? die.value : "?"));
  if (title) g.appendChild(svg("title", {}, title));
  return g;
}

export function mount(root, ctx) {
  const {el} = ctx;
  root.replaceChildren();
  const card = el("section", {class: "card", id: "pyradice-table"});
  card.appendChild(el("h2", {}, "The table"));
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
  root.appendChild(card);
  const rest = el("div", {id: "pyradice-generic"});
  root.appendChild(rest);
  generic.mount(rest, ctx);
  parts = {hand, skill, quarry, pyramids, cards, key: null};
}

function drawQuarry(live) {
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
  const head = `${player.name} · ${player.total} VP · ${player.tokens_met} token${player.tokens_met === 1 ? "" : "s"}`
    + (player.reserve ? ` · reserve ${player.reserve.replace(":", " ")}` : "");
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

function drawCards(live, el) {
  const t = parts.cards;
  t.replaceChildren();
  const head = el("tr");
  head.appendChild(el("th", {}, "Card"));
  for (const p of live.players) head.appendChild(el("th", {"data-player": p.name}, p.name));
  t.appendChild(head);
  for (const c of live.cards) {
    const tr = el("tr", {"data-card": c.title});
    const th = el("th", {scope: "row", title: c.text || ""});
    // The card's disc (an SVG circle: the page's CSP allows no inline styles).
    const disc = svg("svg", {width: 14, height: 14, viewBox: "0 0 14 14", class: "disc", "aria-label": `${c.colour} disc`});
    disc.appendChild(svg("circle", {cx: 7, cy: 7, r: 6, fill: BODY[c.colour] || "#ccc", stroke: "#333"}));
    th.appendChild(disc);
    th.appendChild(document.createTextNode(` ${c.title} (${c.colour})`));
    tr.appendChild(th);
    for (const p of live.players) tr.appendChild(el("td", {class: "num"}, p.cards[c.title] ?? ""));
    t.appendChild(tr);
  }
  const total = el("tr", {class: "total"});
  total.appendChild(el("th", {scope: "row"}, "Total (tokens and cards)"));
  for (const p of live.players) total.appendChild(el("td", {class: "num", "data-player": p.name}, p.total));
  t.appendChild(total);
}

function drawHand(live, el) {
  const mover = live.players.find((p) => p.to_move);
  if (live.winners && live.winners.length) {
    parts.hand.textContent = `Game over: ${live.winners.join(" and ")} (most points, then most objective tokens).`;
  } else if (live.hand) {
    parts.hand.textContent = `${mover ? mover.name : "The player"} holds ${live.hand.replace(":", " ")}: it may go on `
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
      + `${step.uses} legal use${step.uses === 1 ? "" : "s"}. NEXT: no skill.`));
    if (step.seen) {
      const p = el("p", {class: "warning", id: "pyradice-seen"},
        `Seen on the table: ${step.seen.words}. CONFIRM if the skill was used; if not, correct the die.`);
      parts.skill.appendChild(p);
    }
  }
}

export function render(s, ctx) {
  generic.render(s, ctx);
  const game = s.game;
  const live = game && game.live;
  if (!parts || !live || live.kind !== "pyradice") return;
  const key = JSON.stringify(live);
  if (key === parts.key) return;
  parts.key = key;
  const {el} = ctx;
  drawQuarry(live);
  parts.pyramids.replaceChildren();
  for (const p of live.players) parts.pyramids.appendChild(drawPyramid(p, live, el));
  drawCards(live, el);
  drawHand(live, el);
}
