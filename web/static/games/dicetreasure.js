// The Dice Treasure view: the table as the engine holds it, drawn from the adapter's view (game.live, kind
// "dicetreasure"): every player's motif cards in SVG with their spaces (colour and value requirements) and the
// dice on them, the tray (the current dice), both reserves and the common reserve, the middle in the steal
// phase, and gold, colour chips, leprechaun card and claimed cards per player with the live totals. Choosing
// one of the dice the player can move (a button) makes the spaces it may go on glow, and greys out those only
// the neighbour rule forbids (their reason as a tooltip). Below it the generic view: the legal actions as
// buttons, the chance box, the score breakdown. Nothing here composes engine notation or decides a rule.

import {dieFace, dieWords, svg, tableView} from "./draw.js";

/** Dice colours on the page (the stand-in deck's five), the pip colour that reads on each, and backgrounds. */
const BODY = {red: "#c8282a", yellow: "#ebd21e", green: "#2fa846", blue: "#1f4fae", purple: "#6a2878"};
const INK = {red: "#fff", yellow: "#222", green: "#fff", blue: "#fff", purple: "#fff"};
const BACK = {red: "#e9a3a0", orange: "#f3c08a", yellow: "#f3e59a", green: "#a9d8a2", blue: "#9ec0ea",
  indigo: "#a7a3d6", purple: "#cfa3d6"};
const CELL = 30; // px per space

let selected = null; // the die ("colour:value") whose legal spaces glow

/** A die as a small SVG square with its face number. */
function dieSvg(text, size = CELL - 6) {
  const [colour, value] = String(text).split(":");
  const s = svg("svg", {width: size, height: size, viewBox: `0 0 ${size} ${size}`, class: "dt-die",
    "data-die": text, role: "img", "aria-label": dieWords(text)});
  return dieFace(s, size, value, {fill: BODY[colour] || "#ccc", stroke: "#222", ink: INK[colour] || "#111"});
}

function drawCard(card, el) {
  const cols = Math.max(...card.spaces.map((s) => s.at[0])) + 1;
  const rows = Math.max(...card.spaces.map((s) => s.at[1])) + 1;
  const width = Math.max(cols * CELL + 8, 3 * CELL + 8), height = rows * CELL + 24;
  const box = el("figure", {class: `dt-card${card.complete ? " complete" : ""}`, "data-card": card.card});
  const s = svg("svg", {viewBox: `0 0 ${width} ${height}`, width, height, role: "img",
    "aria-label": `card ${card.card}`});
  s.appendChild(svg("rect", {x: 0, y: 0, width, height, rx: 6, fill: BACK[card.background] || "#ddd",
    stroke: "#444"}));
  s.appendChild(svg("text", {x: 6, y: 14, "font-size": 11}, `${card.card} · ${card.coins}¤`));
  const left = (width - cols * CELL) / 2;
  for (const sp of card.spaces) {
    const x = left + sp.at[0] * CELL, y = 20 + sp.at[1] * CELL;
    const legal = selected && (sp.legal_for || []).includes(selected);
    const blocked = selected && sp.blocked_for && sp.blocked_for[selected];
    const cls = ["space", legal ? "legal" : "", blocked ? "blocked" : ""].filter(Boolean).join(" ");
    const g = svg("g", {class: cls, "data-space": sp.space, transform: `translate(${x},${y})`});
    g.appendChild(svg("rect", {x: 2, y: 2, width: CELL - 4, height: CELL - 4, rx: 4,
      fill: sp.colour === "any" ? "#fafafa" : (BODY[sp.colour] || "#ccc"),
      stroke: legal ? "#1a7f37" : "#333", "stroke-width": legal ? 3 : 1, opacity: blocked ? 0.35 : 1}));
    if (sp.value) {
      g.appendChild(svg("circle", {cx: CELL / 2, cy: CELL / 2, r: 8, fill: "#fafafa"}));
      g.appendChild(svg("text", {x: CELL / 2, y: CELL / 2 + 4, "text-anchor": "middle", "font-size": 11}, sp.value));
    }
    const need = `space ${sp.space}: ${sp.colour === "any" ? "any colour" : sp.colour}, ${sp.value || "any value"}`;
    g.appendChild(svg("title", {}, blocked ? `${need}; ${blocked}` : need));
    if (sp.die) {
      const d = dieSvg(sp.die);
      d.setAttribute("x", 3);
      d.setAttribute("y", 3);
      g.appendChild(d);
    }
    s.appendChild(g);
  }
  box.appendChild(s);
  return box;
}

function dieRow(dice, el, id, label) {
  const row = el("p", {class: "dt-dice", id});
  row.appendChild(el("span", {class: "label"}, `${label}: `));
  if (!dice.length) row.appendChild(el("span", {class: "hint"}, "none"));
  for (const d of dice) row.appendChild(dieSvg(d, 22));
  return row;
}

function build(card, el) {
  const status = el("p", {id: "dt-status", class: "status"});
  card.appendChild(status);
  const pick = el("div", {id: "dt-pick", role: "group", "aria-label": "choose a die to see its spaces"});
  card.appendChild(pick);
  const loose = el("div", {id: "dt-loose"});
  card.appendChild(loose);
  const players = el("div", {id: "dt-players"});
  card.appendChild(players);
  const middle = el("div", {id: "dt-middle"});
  card.appendChild(middle);
  return {status, pick, loose, players, middle};
}

function draw(live, parts, ctx) {
  const {el} = ctx;
  if (selected && !live.movable.includes(selected)) selected = null;
  const mover = live.players.find((p) => p.to_move);
  if (live.winners && live.winners.length) {
    parts.status.textContent = `Game over: ${live.winners.join(" and ")} (most gold, then fewer motif cards).`;
  } else {
    const where = live.steal ? (live.solo ? "last turns" : "steal phase: the middle's cards") : "own cards";
    parts.status.textContent = `Round ${live.round}, turn ${live.cycle} of ${live.turns} (${where}); goal `
      + `${live.goal} gold.` + (mover ? ` ${mover.name} to move.` : "")
      + (live.claimable.length ? ` ${mover ? mover.name : "The player"} may claim ${live.claimable.join(", ")}.` : "");
  }
  parts.pick.replaceChildren();
  if (live.movable.length) {
    parts.pick.appendChild(el("span", {class: "label"}, "Show the spaces of: "));
    for (const d of live.movable) {
      const b = el("button", {type: "button", class: `dt-pick${d === selected ? " selected" : ""}`, "data-die": d,
        "aria-pressed": d === selected ? "true" : "false"}, dieWords(d));
      b.addEventListener("click", () => {
        selected = selected === d ? null : d;
        parts.key = null;
        draw(parts.live, parts, ctx);
      });
      parts.pick.appendChild(b);
    }
  }
  parts.loose.replaceChildren();
  parts.loose.appendChild(dieRow(live.tray, el, "dt-tray", "Tray"));
  parts.loose.appendChild(dieRow(live.common, el, "dt-common", "Common reserve"));
  parts.players.replaceChildren();
  for (const p of live.players) {
    const box = el("section", {class: `dt-player${p.to_move ? " to-move" : ""}`, "data-player": p.name});
    const b = p.breakdown;
    box.appendChild(el("h3", {class: "dt-gold"}, `${p.name}: ${p.gold} gold (cards ${b.cards}, chips ${b.chips}, `
      + `bonus ${b.bonus})`));
    box.appendChild(el("p", {class: "hint"}, `chips: ${p.chips.join(", ") || "none"} · leprechaun card: `
      + `${p.bonus || "none"} · claimed: ${p.claimed.join(", ") || "none"}`));
    box.appendChild(dieRow(p.reserve, el, `dt-reserve-${p.seat}`, "Personal reserve"));
    const cards = el("div", {class: "dt-cards"});
    for (const c of p.cards) cards.appendChild(drawCard(c, el));
    box.appendChild(cards);
    parts.players.appendChild(box);
  }
  parts.middle.replaceChildren();
  if (live.middle.length) {
    parts.middle.appendChild(el("h3", {}, "The middle"));
    const cards = el("div", {class: "dt-cards"});
    for (const c of live.middle) cards.appendChild(drawCard(c, el));
    parts.middle.appendChild(cards);
  }
}

// The camera's readings of the cards' spaces, in the adapter's order, so that a correction names the space by its
// index. The colours offered are the deck's (the live view's dice_colours), else the stand-in deck's five.
function readingItems(s) {
  const seen = (s.table && s.table.seen) || {};
  return (seen.spaces || []).map((sp, index) => ({
    index, words: `card ${sp.card}, space ${sp.space}: ${sp.die ? dieWords(sp.die) : "empty"}${sp.why ? ` (${sp.why})` : ""}`,
    unsure: !!sp.unsure, corrected: !!sp.corrected, colour: sp.die ? String(sp.die).split(":")[0] : null}));
}

export const {mount, render} = tableView("dicetreasure", build, draw, {
  items: readingItems,
  colours: (s) => ((s.game && s.game.live) || {}).dice_colours || Object.keys(BODY),
});
