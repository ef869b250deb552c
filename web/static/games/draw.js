// What the board games' page modules (pyradice.js, pyramido.js, dicetreasure.js) draw alike: SVG elements, a
// die as a rounded square with its face, a die and a count in words, table rows, and the frame of a board
// game's view: the card "The table" above the generic view, redrawn only when the adapter's view changed, and a
// camera card of the readings in doubt to tap and correct. Nothing here knows a game: the colours, sizes and
// words are the caller's.

import * as generic from "./generic.js";

const SVG = "http://www.w3.org/2000/svg";

/** An SVG element; attributes that are null, undefined or false are left out. */
export function svg(tag, attrs = {}, text = "") {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    node.setAttribute(k, String(v));
  }
  if (text !== "") node.textContent = String(text);
  return node;
}

/** A die as the adapters write it, "colour:value", as {colour, value}; null for none (a die not seen yet). */
export function parseDie(text) {
  if (!text) return null;
  const [colour, value] = String(text).split(":");
  return {colour, value};
}

/** A die in words on the page: "red:5" reads "red 5". */
export function dieWords(die) {
  return die ? String(die).replace(":", " ") : "";
}

/** "1 token", "3 tokens", "2 dominoes": a count and its word. */
export function counted(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * Draw a die's square (size px, 1 px in from the edge, rounded) and its face (centred) into parent, an SVG
 * group or svg element whose origin is the die's corner. look: {fill, ink, stroke, strokeWidth} (strokeWidth
 * may be left out). Returns parent.
 */
export function dieFace(parent, size, face, look) {
  parent.appendChild(svg("rect", {x: 1, y: 1, width: size - 2, height: size - 2, rx: 4, fill: look.fill,
    stroke: look.stroke, "stroke-width": look.strokeWidth}));
  parent.appendChild(svg("text", {x: size / 2, y: size / 2 + 5, "text-anchor": "middle", "font-size": 14,
    fill: look.ink}, face));
  return parent;
}

/**
 * A table row: each cell [tag, attrs, content], content a text (a number is written as text; "" leaves the
 * cell empty) or a list of nodes and texts.
 */
export function row(el, attrs, cells) {
  const tr = el("tr", attrs);
  for (const [tag, cellAttrs, content] of cells) {
    const cell = el(tag, cellAttrs, Array.isArray(content) ? "" : content);
    if (Array.isArray(content)) cell.append(...content);
    tr.appendChild(cell);
  }
  return tr;
}

/**
 * A board game's view, as app.js loads it ({mount, render}): a card "The table" (id KIND-table) that
 * build(card, el) fills, returning the parts it will redraw, and below it the generic view (id
 * KIND-generic: the legal actions as buttons, the chance box, the score breakdown). draw(live, parts, ctx)
 * redraws the table from the adapter's view (game.live of this kind) whenever that changed; parts.live is the
 * view last drawn, and a page-only choice that needs a redraw sets parts.key = null and calls draw again.
 * With camera ({items(s), colours(s)}: the readings in the adapter's order and the die colours to offer), the
 * camera card of mountReadings/drawReadings follows the generic view.
 */
export function tableView(kind, build, draw, camera = null) {
  let parts = null;
  let readings = null;

  function mount(root, ctx) {
    const {el} = ctx;
    root.replaceChildren();
    const card = el("section", {class: "card", id: `${kind}-table`});
    card.appendChild(el("h2", {}, "The table"));
    parts = {...build(card, el), key: null, live: null};
    root.appendChild(card);
    const rest = el("div", {id: `${kind}-generic`});
    root.appendChild(rest);
    generic.mount(rest, ctx);
    if (camera) readings = mountReadings(root, ctx, kind);
  }

  function render(s, ctx) {
    generic.render(s, ctx);
    if (camera) drawReadings(readings, s, ctx, camera.items(s), camera.colours(s));
    const game = s.game;
    const live = game && game.live;
    if (!parts || !live || live.kind !== kind) return;
    const key = JSON.stringify(live);
    if (key === parts.key) return;
    parts.key = key;
    parts.live = live;
    draw(live, parts, ctx);
  }

  return {mount, render};
}

/**
 * A board game's camera card ("What the camera read", shown in camera games): the frame as the device drew it,
 * and the readings in doubt (and those the players corrected) as buttons; a tap opens a dialog to say what lies
 * there: a die of one of the game's colours and its face, or nothing. The device then explains the table again.
 * mountReadings(root, ctx, kind) returns the card's parts; drawReadings(parts, s, ctx, items, colours) redraws
 * it, items in the adapter's reading order: {index, words, unsure, corrected, colour}.
 */
export function mountReadings(root, ctx, kind) {
  const {el} = ctx;
  const card = el("section", {class: "card", id: `${kind}-camera`, hidden: true});
  card.appendChild(el("h2", {}, "What the camera read"));
  const img = el("img", {id: `${kind}-frame`, alt: "latest camera frame as read", hidden: true, class: "camera-frame"});
  card.appendChild(img);
  ctx.followFrame(img);
  const list = el("div", {id: `${kind}-readings`, class: "readings"});
  card.appendChild(list);
  card.appendChild(el("div", {class: "errors", "data-slot": "seen", "aria-live": "assertive"}));
  const dialog = el("dialog", {id: `${kind}-correct`});
  const form = el("form", {method: "dialog"});
  const question = el("p", {class: "question"});
  const colours = el("div", {class: "colours"});
  const faces = el("div", {class: "faces"});
  for (let v = 1; v <= 6; v++) faces.appendChild(el("button", {value: String(v), class: "face-button"}, v));
  form.append(question, colours, faces, el("button", {value: "empty", class: "empty-button"}, "nothing there"),
    el("button", {value: "cancel"}, "Cancel"));
  dialog.appendChild(form);
  card.appendChild(dialog);
  root.appendChild(card);
  return {card, list, dialog, question, colours, key: null};
}

function openReading(parts, ctx, item, colours) {
  if (!ctx.paired) { ctx.showError("seen", "pair this browser to correct a reading: press “Pair this browser”, then CONFIRM on the device"); return; }
  const {el} = ctx;
  parts.question.textContent = `${item.words}: what lies there?`;
  parts.colours.replaceChildren();
  const chosen = colours.includes(item.colour) ? item.colour : colours[0];
  for (const c of colours) {
    const label = el("label", {});
    const radio = el("input", {type: "radio", name: "colour", value: c});
    radio.checked = c === chosen;
    label.append(radio, ` ${c}`);
    parts.colours.appendChild(label);
  }
  parts.dialog.returnValue = "";
  parts.dialog.onclose = () => {
    const answer = parts.dialog.returnValue;
    if (!answer || answer === "cancel") return;
    const colour = (parts.colours.querySelector("input:checked") || {}).value || chosen;
    ctx.post("/api/correct", {index: item.index, value: answer === "empty" ? "empty" : `${colour}:${answer}`}, "seen");
  };
  parts.dialog.showModal();
}

export function drawReadings(parts, s, ctx, items, colours) {
  if (!parts) return;
  const table = s.table || {};
  parts.card.hidden = !(s.game && s.game.mode === "camera");
  const key = JSON.stringify([items, !!table.pending]);
  if (key === parts.key) return;
  parts.key = key;
  parts.list.replaceChildren();
  const shown = items.filter((it) => it.unsure || it.corrected);
  if (!shown.length) {
    parts.list.appendChild(ctx.el("p", {class: "hint"}, table.seen ? "Every reading is sure." : "Nothing read yet."));
    return;
  }
  parts.list.appendChild(ctx.el("p", {class: "hint"}, "Readings in doubt: tap one to say what lies there."));
  for (const it of shown) {
    const b = ctx.el("button", {type: "button", class: `reading${it.unsure ? " unsure" : ""}${it.corrected ? " corrected" : ""}`,
      "data-index": String(it.index)}, it.words + (it.corrected ? " (corrected)" : ""));
    if (table.pending) b.addEventListener("click", () => openReading(parts, ctx, it, colours));
    else b.disabled = true;
    parts.list.appendChild(b);
  }
}
