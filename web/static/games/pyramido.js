// The Pyramido view: the table as the engine holds it, drawn from the adapter's view (game.live, kind
// "pyramido"): each player's pyramid in SVG at quarter-cell resolution (blocks in their colours, later stages
// drawn lighter-edged on top, gem icons as small diamonds, each area's icon count at its anchor), the legal
// placements of the domino in hand as dashed ghosts on the mover's pyramid (or "no room: this turn is lost"),
// the exploration area (piles, face-up dominoes, gem areas), inventories and live totals, the stage-end
// scoring (the optimiser's activation, what a long CONFIRM records next) and the Legend in solo play. Below it
// the generic view: the legal actions as buttons, the chance box, the score breakdown. Nothing here composes
// engine notation or decides a rule: a ghost shows the action text the engine gave it.

import {counted, row, svg, tableView} from "./draw.js";

/** The five block and gem colours on the page; mythical gems are pale. */
const FILL = {orange: "#e8892c", blue: "#2f63b8", purple: "#7d3a8c", green: "#3f9a45", red: "#c8322d",
  mythical: "#e6def0"};
const Q = 12; // px per quarter cell

function gemsText(gems) {
  const items = Object.entries(gems || {}).map(([g, n]) => `${n} ${g}`);
  return items.length ? items.join(", ") : "no gems";
}

function build(card, el) {
  const hand = el("p", {id: "pyramido-hand", class: "status"});
  card.appendChild(hand);
  const scoring = el("div", {id: "pyramido-scoring"});
  card.appendChild(scoring);
  const pyramids = el("div", {id: "pyramido-pyramids", class: "pyramids"});
  card.appendChild(pyramids);
  card.appendChild(el("h3", {}, "Exploration area"));
  const spaces = el("table", {id: "pyramido-spaces"});
  const wrap = el("div", {class: "scroll"});
  wrap.appendChild(spaces);
  card.appendChild(wrap);
  const legend = el("p", {id: "pyramido-legend", class: "hint", hidden: true});
  card.appendChild(legend);
  return {hand, scoring, pyramids, spaces, legend};
}

function drawPyramid(p, el) {
  const fig = el("figure", {class: "pyramid", "data-seat": String(p.seat)});
  const caption = `${p.name}: ${counted(p.total, "point")}` +
    (p.stage_scores.length ? ` (stages ${p.stage_scores.join(", ")})` : "") + ` · gems: ${gemsText(p.inventory)}`;
  fig.appendChild(el("figcaption", {}, caption + (p.to_move ? " · to move" : "")));
  const cells = p.cells.map(([x, y, colour, icon, stage]) => ({x, y, colour, icon, stage}));
  const ghostCells = p.ghosts.flatMap((g) => g.blocks.flatMap(([x, y]) => [[x, y], [x + 1, y + 1]]));
  const xs = cells.map((c) => c.x).concat(ghostCells.map((c) => c[0]), [0, 1]);
  const ys = cells.map((c) => c.y).concat(ghostCells.map((c) => c[1]), [0, 1]);
  const x0 = Math.min(...xs) - 1, y0 = Math.min(...ys) - 1;
  const w = (Math.max(...xs) - x0 + 2) * Q, h = (Math.max(...ys) - y0 + 2) * Q;
  const s = svg("svg", {viewBox: `0 0 ${w} ${h}`, width: w, height: h, role: "img",
    "aria-label": `${p.name}'s pyramid`, class: "pyramido-svg"});
  const at = (x, y) => [(x - x0) * Q, (y - y0) * Q];
  // Lower stages first: a later stage lies on top, its quarter cells drawn over what they cover.
  for (const c of cells.slice().sort((a, b) => a.stage - b.stage)) {
    const [px, py] = at(c.x, c.y);
    s.appendChild(svg("rect", {x: px, y: py, width: Q, height: Q, fill: FILL[c.colour] || "#999",
      stroke: "#222", "stroke-opacity": 0.15 + 0.2 * c.stage, "stroke-width": 1, class: `cell stage-${c.stage}`,
      "data-cell": `${c.x},${c.y}`}));
    if (c.icon) {
      const m = Q / 2;
      s.appendChild(svg("path", {d: `M${px + m} ${py + 2} L${px + Q - 2} ${py + m} L${px + m} ${py + Q - 2} ` +
        `L${px + 2} ${py + m} Z`, fill: "#fff", "fill-opacity": 0.85, class: "icon"}));
    }
  }
  for (const a of p.areas) {
    if (!a.icons) continue;
    const [px, py] = at(a.anchor[0], a.anchor[1]);
    s.appendChild(svg("text", {x: px + 2, y: py + Q - 2, "font-size": 10, fill: "#000", class: "area-count"},
      String(a.icons)));
  }
  for (const g of p.ghosts) {
    const gx = g.blocks.map((b) => b[0]), gy = g.blocks.map((b) => b[1]);
    const [px, py] = at(Math.min(...gx), Math.min(...gy));
    const gw = (Math.max(...gx) - Math.min(...gx) + 2) * Q, gh = (Math.max(...gy) - Math.min(...gy) + 2) * Q;
    const ghost = svg("rect", {x: px + 1, y: py + 1, width: gw - 2, height: gh - 2, fill: "none", stroke: "#111",
      "stroke-dasharray": "3 2", "stroke-width": 1.2, class: "ghost"});
    ghost.appendChild(svg("title", {}, g.text));
    s.appendChild(ghost);
  }
  fig.appendChild(s);
  if (p.no_room) fig.appendChild(el("p", {class: "warn no-room"}, "No room: this turn is lost."));
  return fig;
}

function drawSpaces(live, parts, el) {
  const t = parts.spaces;
  t.replaceChildren();
  t.appendChild(row(el, {}, ["Pile", "On top", "Face down", "Gem area"].map((h) => ["th", {}, h])));
  for (const sp of live.spaces) {
    t.appendChild(row(el, {"data-pile": String(sp.pile)}, [["td", {}, String(sp.pile)],
      ["td", {class: "top"}, sp.face_up || (sp.face_down ? "(a back)" : "(empty)")],
      ["td", {}, String(sp.face_down)], ["td", {class: "gems"}, gemsText(sp.gems)]]));
  }
}

function drawScoring(live, parts, el) {
  const box = parts.scoring;
  box.replaceChildren();
  const sc = live.scoring;
  if (!sc) return;
  const card = el("div", {class: "stage-end", id: "pyramido-stage-end"});
  card.appendChild(el("h3", {}, `Stage ${sc.stage} ends: ${sc.name} scores`));
  if (sc.discard) {
    card.appendChild(el("p", {}, sc.next));
  } else {
    const list = el("ul", {id: "pyramido-suggested"});
    for (const a of sc.suggested) list.appendChild(el("li", {}, `activate ${a}`));
    if (!sc.suggested.length) list.appendChild(el("li", {}, "no area is worth a gem"));
    card.appendChild(el("p", {}, `Suggested activation (${counted(sc.points, "point")}` +
      (sc.activated.length ? `, after ${sc.activated.join(", ")}` : "") + "):"));
    card.appendChild(list);
    card.appendChild(el("p", {class: "hint", id: "pyramido-next"}, `Hold CONFIRM to record: ${sc.next}`));
  }
  box.appendChild(card);
}

function draw(live, parts, {el}) {
  parts.hand.textContent = live.question || (live.holding
    ? `${live.to_move} holds ${live.holding} (stage ${live.stage}): the dashed outlines are where it may go.`
    : `Stage ${live.stage}: ${live.phase}.`);
  parts.hand.classList.toggle("attention", !!live.question);
  parts.pyramids.replaceChildren();
  for (const p of live.players) parts.pyramids.appendChild(drawPyramid(p, el));
  drawSpaces(live, parts, el);
  drawScoring(live, parts, el);
  if (live.legend) {
    const lg = live.legend;
    parts.legend.hidden = false;
    parts.legend.textContent = `The Legend: ${lg.total} points, ${counted(lg.pile, "domino", "dominoes")} ` +
      `on his pile (top ${lg.top || "none"}), gems: ${gemsText(lg.inventory)}.` +
      (lg.last ? ` Last turn: ${lg.last}.` : "");
  } else {
    parts.legend.hidden = true;
  }
}

// --- What the camera read: the frame with the cells drawn (by the device), the cells read per pyramid, and
// a tap on a cell to say what it shows (the device asks rather than guesses; the players fix, it rereads).

const LETTERS = {orange: "o", blue: "b", purple: "p", green: "g", red: "r"};
let camera = null; // the camera card's parts

function mountCamera(root, ctx) {
  const {el} = ctx;
  const card = el("section", {class: "card", id: "pyramido-camera", hidden: true});
  card.appendChild(el("h2", {}, "What the camera read"));
  const img = el("img", {id: "pyramido-frame", alt: "latest camera frame with the cells as read", hidden: true,
    class: "camera-frame"});
  card.appendChild(img);
  card.appendChild(el("p", {class: "hint"}, "Cells ringed in red, and gems marked hard to count, were hard to read: tap one to say what it shows."));
  const cells = el("div", {id: "pyramido-seen", class: "pyramids"});
  card.appendChild(cells);
  // The gems counted in each gem area and inventory spot; one in doubt is tapped and its gems said by colour.
  const gems = el("ul", {id: "pyramido-gems-seen", class: "gems-seen"});
  card.appendChild(gems);
  card.appendChild(el("div", {class: "errors", "data-slot": "seen", "aria-live": "assertive"}));
  const dialog = el("dialog", {id: "pyramido-correct"});
  const form = el("form", {method: "dialog"});
  form.appendChild(el("p", {id: "pyramido-correct-cell"}, ""));
  const choices = el("div", {class: "faces"});
  choices.appendChild(el("button", {value: "-", class: "cell-choice"}, "empty"));
  for (const [colour, letter] of Object.entries(LETTERS)) {
    choices.appendChild(el("button", {value: letter, class: "cell-choice"}, colour));
    choices.appendChild(el("button", {value: `${letter}*`, class: "cell-choice"}, `${colour} + gem icon`));
  }
  form.appendChild(choices);
  form.appendChild(el("button", {value: "cancel"}, "Cancel"));
  dialog.appendChild(form);
  card.appendChild(dialog);
  const gemDialog = el("dialog", {id: "pyramido-gems-correct"});
  const gemForm = el("form", {method: "dialog"});
  gemForm.appendChild(el("p", {id: "pyramido-gems-place"}, ""));
  for (const gem of GEM_KINDS) {
    const label = el("label", {class: "gem-count"}, `${gem} `);
    label.appendChild(el("input", {type: "number", min: "0", max: "12", value: "0", name: gem,
      "data-gem": gem}));
    gemForm.appendChild(label);
  }
  gemForm.appendChild(el("button", {value: "ok", class: "gems-ok"}, "These gems lie there"));
  gemForm.appendChild(el("button", {value: "cancel"}, "Cancel"));
  gemDialog.appendChild(gemForm);
  card.appendChild(gemDialog);
  root.appendChild(card);
  ctx.followFrame(img);
  camera = {card, cells, gems, dialog, gemDialog, key: null};
}

/** The gem kinds as the page names them, in the engine's order, and each one's letter for /api/correct. */
const GEM_KINDS = ["orange", "blue", "purple", "green", "red", "mythical"];
const GEM_LETTER = {orange: "o", blue: "b", purple: "p", green: "g", red: "r", mythical: "m"};

function openGemCorrection(ctx, place) {
  if (!ctx.paired) { ctx.showError("seen", "pair this browser to correct a reading: press “Pair this browser”, then CONFIRM on the device"); return; }
  const dialog = camera.gemDialog;
  document.getElementById("pyramido-gems-place").textContent = `${place.label}: how many gems of each colour lie there?`;
  for (const input of dialog.querySelectorAll("input[data-gem]")) {
    input.value = String((place.gems_read || {})[input.dataset.gem] || 0);
  }
  dialog.returnValue = "";
  dialog.onclose = () => {
    if (dialog.returnValue !== "ok") return;
    let value = "";
    for (const input of dialog.querySelectorAll("input[data-gem]")) {
      value += GEM_LETTER[input.dataset.gem].repeat(Math.max(0, Math.min(12, parseInt(input.value, 10) || 0)));
    }
    ctx.post("/api/correct", {index: place.index, value: value || "-"}, "seen");
  };
  dialog.showModal();
}

function renderGemsSeen(table, ctx) {
  camera.gems.replaceChildren();
  const places = [
    ...((table.seen && table.seen.exploration) || []).map((g) => ({...g, label: `Gem area ${g.pile}`})),
    ...((table.seen && table.seen.inventories) || []).map((g) => ({...g, label: `Player ${g.seat + 1}'s gems`})),
  ];
  for (const place of places) {
    const doubt = place.gems_unsure;
    const item = ctx.el("li", {class: ["gem-read", doubt ? "unsure" : "", place.corrected ? "corrected" : ""]
      .filter(Boolean).join(" "), "data-index": String(place.index)},
    `${place.label}: ${gemsText(place.gems_read)}` + (doubt ? " (hard to count: tap to say the gems)" : "") +
      (place.corrected ? " (said on the page)" : ""));
    if (table.pending) item.addEventListener("click", () => openGemCorrection(ctx, place));
    camera.gems.appendChild(item);
  }
}

function openCorrection(ctx, index, cell) {
  if (!ctx.paired) { ctx.showError("seen", "pair this browser to correct a reading: press “Pair this browser”, then CONFIRM on the device"); return; }
  const dialog = camera.dialog;
  document.getElementById("pyramido-correct-cell").textContent = `Quarter cell ${cell.join(",")} shows:`;
  dialog.returnValue = "";
  dialog.onclose = () => {
    const value = dialog.returnValue;
    if (value && value !== "cancel") ctx.post("/api/correct", {index, value}, "seen");
  };
  dialog.showModal();
}

function renderCamera(s, ctx) {
  if (!camera) return;
  const table = s.table || {};
  const seen = (table.seen && table.seen.pyramids) || [];
  const live = s.game && s.game.mode === "camera";
  camera.card.hidden = !live;
  const key = JSON.stringify([table.seen || null, !!table.pending]);
  if (key === camera.key) return;
  camera.key = key;
  renderGemsSeen(table, ctx);
  camera.cells.replaceChildren();
  let index = 0; // the adapter numbers the cells read pyramid by pyramid, in order
  for (const p of seen) {
    const xs = p.cells.map((c) => c.cell[0]), ys = p.cells.map((c) => c.cell[1]);
    if (!xs.length) { index += p.cells.length; continue; }
    const x0 = Math.min(...xs) - 1, y0 = Math.min(...ys) - 1;
    const w = (Math.max(...xs) - x0 + 2) * Q, h = (Math.max(...ys) - y0 + 2) * Q;
    const fig = ctx.el("figure", {class: "pyramid seen", "data-seat": String(p.seat)});
    fig.appendChild(ctx.el("figcaption", {}, `Read on pyramid ${p.seat + 1}` +
      (p.problems.length ? `: ${p.problems.join("; ")}` : "")));
    const pic = svg("svg", {viewBox: `0 0 ${w} ${h}`, width: w, height: h, role: "img",
      "aria-label": `the cells read on pyramid ${p.seat + 1}`, class: "pyramido-svg"});
    for (const c of p.cells) {
      const i = index++;
      const [px, py] = [(c.cell[0] - x0) * Q, (c.cell[1] - y0) * Q];
      const classes = ["seen-cell", c.unsure ? "unsure" : "", c.corrected ? "corrected" : ""].filter(Boolean).join(" ");
      const rect = svg("rect", {x: px + 0.5, y: py + 0.5, width: Q - 1, height: Q - 1,
        fill: c.colour ? FILL[c.colour] : "none", stroke: c.unsure ? "#d00" : c.corrected ? "#080" : "#bbb",
        "stroke-width": c.unsure || c.corrected ? 2 : 0.5, "stroke-dasharray": c.unsure ? "2 1" : null,
        class: classes, "data-index": String(i), "data-cell": c.cell.join(",")});
      rect.appendChild(svg("title", {}, `${c.cell.join(",")}: ${c.colour || "empty"}${c.icon ? " with a gem icon" : ""}` +
        (c.unsure ? ` (unsure, ${Math.round(c.confidence * 100)}%)` : "")));
      if (table.pending) rect.addEventListener("click", () => openCorrection(ctx, i, c.cell));
      pic.appendChild(rect);
      if (c.icon) {
        const m = Q / 2;
        pic.appendChild(svg("circle", {cx: px + m, cy: py + m, r: 2, fill: "#fff", "pointer-events": "none"}));
      }
    }
    fig.appendChild(pic);
    camera.cells.appendChild(fig);
  }
}

const table = tableView("pyramido", build, draw);

export function mount(root, ctx) {
  table.mount(root, ctx);
  mountCamera(root, ctx);
}

export function render(s, ctx) {
  table.render(s, ctx);
  renderCamera(s, ctx);
}
