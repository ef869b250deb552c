// Paša-řada-pyramida's own view: the dice on the table, the turn, the advisor, the score sheets, and (in
// offline mode) the roll entry and the scorekeeper's form.
//
// One roll at a time: while the table waits for the players (a die in doubt, the wrong number of dice),
// only the dice just read are shown, never the previous roll's holds, "Now" column or advice.
// The advisor's figures: `value` is the expected rest of the game, `final` the expected final total (the
// sheet's points plus that rest); the page shows the final total.

const PIPS = {1: [5], 2: [1, 9], 3: [1, 5, 9], 4: [1, 3, 7, 9], 5: [1, 3, 5, 7, 9], 6: [1, 3, 4, 6, 7, 9]};
const COLOURS = {white: "#f4f4f0", gray: "#9a9a96", maroon: "#7a1f28", orange: "#f07a14", red: "#c8282a",
  green: "#2fa846", blue: "#1f4fae", yellow: "#ebd21e", purple: "#6a2878", black: "#232323", ivory: "#ebe1c8"};
const DARK = ["maroon", "red", "green", "blue", "purple", "black", "gray"];

let parts = null;

function drawDie(el, value, colour, extra = []) {
  const die = el("button", {class: ["die", ...extra].join(" "), type: "button", "data-value": value,
    "aria-label": `die showing ${value}` + (extra.includes("unsure") ? ", hard to read" : "") + (extra.includes("cocked") ? ", cocked" : "")});
  die.style.background = COLOURS[colour] || COLOURS.white;
  const dark = DARK.includes(colour);
  for (let cell = 1; cell <= 9; cell++) {
    const pip = el("span", {class: "cell"});
    if ((PIPS[value] || []).includes(cell)) pip.classList.add("pip");
    if (dark) pip.classList.add("light");
    die.appendChild(pip);
  }
  return die;
}

function holdMask(values, keep) {
  const left = {};
  for (const k of keep || []) left[k] = (left[k] || 0) + 1;
  return values.map((v) => { if (left[v] > 0) { left[v] -= 1; return true; } return false; });
}

function fmt(x) {
  return typeof x === "number" ? x.toFixed(1) : "–";
}

export function mount(root, ctx) {
  const {el} = ctx;
  root.replaceChildren();
  const row = el("section", {class: "panel-row"});

  // The turn: who, which roll, which category, the dice.
  const turn = el("div", {id: "turn", class: "card"});
  turn.appendChild(el("h2", {}, "Turn"));
  const line = el("p", {class: "status"});
  line.appendChild(el("strong", {id: "player"}, "–"));
  line.appendChild(document.createTextNode(" · roll "));
  line.appendChild(el("span", {id: "roll"}, "0"));
  line.appendChild(document.createTextNode("/"));
  line.appendChild(el("span", {id: "max-rolls"}, "3"));
  line.appendChild(document.createTextNode(" · category "));
  line.appendChild(el("strong", {id: "category"}, "–"));
  turn.appendChild(line);
  turn.appendChild(el("p", {id: "hint", class: "hint"}));
  turn.appendChild(el("div", {id: "pending", class: "pending", hidden: true, role: "status"}));
  turn.appendChild(el("div", {id: "dice", class: "dice", "aria-label": "dice on the table"}));
  turn.appendChild(el("p", {id: "dice-note", class: "hint"}));
  const buttons = el("div", {class: "actions wrap"});
  const accept = el("button", {id: "accept", type: "button", hidden: true}, "Accept as read");
  const stop = el("button", {id: "stop", type: "button", hidden: true}, "End turn");
  const same = el("button", {id: "same-roll", type: "button", hidden: true,
    title: "a re-roll that showed exactly the same faces (the camera cannot see it)"}, "Re-rolled: same faces");
  const undo = el("button", {id: "turn-undo", type: "button", class: "undo"}, "Undo");
  buttons.append(accept, stop, same, undo);
  turn.appendChild(buttons);
  turn.appendChild(el("div", {class: "errors", "data-slot": "turn", "aria-live": "assertive"}));

  // Rolls typed in (offline, or when the camera cannot help).
  const rollForm = el("form", {id: "roll-form", class: "chance", hidden: true, autocomplete: "off"});
  rollForm.appendChild(el("label", {for: "roll-text", id: "roll-what"}, "The dice as they lie"));
  const rollRow = el("div", {class: "row"});
  const rollInput = el("input", {id: "roll-text", type: "text", spellcheck: "false", autocapitalize: "off", autocomplete: "off"});
  rollRow.append(rollInput, el("button", {type: "submit"}, "Enter roll"));
  rollForm.appendChild(rollRow);
  rollForm.appendChild(el("p", {id: "roll-example", class: "hint"}));
  rollForm.appendChild(el("div", {class: "errors", "data-slot": "roll", "aria-live": "assertive"}));
  turn.appendChild(rollForm);
  row.appendChild(turn);

  const advice = el("div", {id: "advice-card", class: "card"});
  advice.appendChild(el("h2", {}, "Advice"));
  advice.appendChild(el("p", {id: "advice-note", class: "hint"}));
  advice.appendChild(el("ol", {id: "advice"}));
  advice.appendChild(el("p", {id: "holds", class: "hint"}));
  row.appendChild(advice);

  const camera = el("div", {id: "camera-card", class: "card"});
  camera.appendChild(el("h2", {}, "Camera"));
  const img = el("img", {id: "frame", alt: "latest camera frame with the dice as read", width: 400, height: 300, hidden: true});
  camera.appendChild(img);
  const noFrame = el("p", {id: "frame-none", class: "hint"}, "No picture from the camera yet.");
  camera.appendChild(noFrame);
  row.appendChild(camera);
  root.appendChild(row);

  const sheetCard = el("section", {class: "card", id: "sheet-card"});
  sheetCard.appendChild(el("h2", {}, "Score sheets"));
  const wrap = el("div", {class: "scroll"});
  wrap.appendChild(el("table", {id: "sheet"}));
  sheetCard.appendChild(wrap);
  sheetCard.appendChild(el("div", {class: "errors", "data-slot": "sheet", "aria-live": "assertive"}));
  root.appendChild(sheetCard);

  const keeper = el("section", {class: "card", id: "offline", hidden: true});
  keeper.appendChild(el("h2", {}, "Scorekeeper"));
  keeper.appendChild(el("p", {class: "hint"}, "No dice to enter? Write a whole turn at once: the category and its points."));
  const form = el("form", {id: "enter-form"});
  const catLabel = el("label", {}, "Category ");
  catLabel.appendChild(el("select", {id: "enter-category"}));
  const ptsLabel = el("label", {}, "Points ");
  ptsLabel.appendChild(el("select", {id: "enter-points"}));
  form.append(catLabel, ptsLabel, el("button", {type: "submit"}, "Write"));
  keeper.appendChild(form);
  keeper.appendChild(el("div", {class: "errors", "data-slot": "enter", "aria-live": "assertive"}));
  root.appendChild(keeper);

  // The correction dialog: which face a misread die shows.
  const dialog = el("dialog", {id: "correct-dialog"});
  const dform = el("form", {method: "dialog"});
  const q = el("p", {}, "Die ");
  q.appendChild(el("span", {id: "correct-index"}));
  q.appendChild(document.createTextNode(" shows:"));
  dform.appendChild(q);
  const faces = el("div", {class: "faces"});
  for (let v = 1; v <= 6; v++) faces.appendChild(el("button", {value: v, class: "face-button"}, v));
  dform.appendChild(faces);
  dform.appendChild(el("button", {value: "cancel"}, "Cancel"));
  dialog.appendChild(dform);
  root.appendChild(dialog);

  undo.addEventListener("click", () => ctx.post("/api/undo", {}, "turn"));
  accept.addEventListener("click", () => ctx.post("/api/confirm", {}, "turn"));
  stop.addEventListener("click", () => {
    const a = legalIn(ctx, "stop")[0];
    if (a) ctx.post("/api/action", {text: a.text}, "turn");
  });
  same.addEventListener("click", () => {
    const dice = ctx.snapshot && ctx.snapshot.game ? ctx.snapshot.game.live.dice : [];
    // The only notation this view writes: the same six faces again, which is what the players did.
    if (dice.length) ctx.post("/api/action", {text: `roll ${dice.join(" ")}`}, "turn");
  });
  rollForm.addEventListener("submit", async (e) => {
    e.preventDefault();
    const text = rollInput.value.trim();
    if (!text) { ctx.showError("roll", "type the six dice first, as in the example"); return; }
    const data = await ctx.post("/api/action", {text}, "roll");
    if (!data.error) rollInput.value = "";
  });
  // The points a category can take come from the engine's entries (/api/legal); the text posted is the entry's.
  document.getElementById("enter-category").addEventListener("change", () => renderPoints(ctx));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const text = document.getElementById("enter-points").value;
    if (!text) { ctx.showError("enter", "no points can be written in this category now"); return; }
    ctx.post("/api/action", {text}, "enter");
  });
  ctx.followFrame(img, noFrame);
  parts = {root, rollInput, openKey: null, rollKey: null, pointsKey: null};
}

// The legal actions this view puts on its own controls, found by their notation's first word (the engine's
// groups are for laying out buttons and may be renamed); the text posted is always the one /api/legal gave.
function legalIn(ctx, verb) {
  const legal = ctx.legal && Array.isArray(ctx.legal.legal) ? ctx.legal.legal : [];
  return legal.filter((a) => a.text.trim().split(/\s+/)[0] === verb);
}

function openCorrection(ctx, index) {
  if (!ctx.paired) { ctx.showError("turn", "pair this browser to correct a die: press “Pair this browser”, then CONFIRM on the device"); return; }
  const dialog = document.getElementById("correct-dialog");
  document.getElementById("correct-index").textContent = index + 1;
  dialog.returnValue = "";
  dialog.onclose = () => {
    const value = parseInt(dialog.returnValue, 10);
    if (value >= 1 && value <= 6) ctx.post("/api/correct", {index, value}, "turn");
  };
  dialog.showModal();
}

export function render(s, ctx) {
  const game = s.game;
  if (!game || !parts) return;
  const {el} = ctx;
  const live = game.live || {};
  const table = s.table || {};
  const pending = !!table.pending;
  const seen = (table.seen && table.seen.dice) || table.dice || [];
  const camera = game.mode === "camera";
  const finished = !!(game.status && game.status.finished);

  document.getElementById("player").textContent = live.player || (finished ? "Game over" : "–");
  parts.root.querySelector("#turn .status").classList.toggle("finished", finished);
  document.getElementById("advice-card").hidden = finished;
  document.getElementById("dice").hidden = finished;
  document.getElementById("roll").textContent = live.roll ?? 0;
  document.getElementById("max-rolls").textContent = live.max_rolls ?? 3;
  document.getElementById("category").textContent = live.category_title || "–";
  document.getElementById("hint").textContent = pending ? "The table waits for you: see below." : (live.hint || "");

  // Pending: the new reading, alone, with what is wrong with it.
  const pend = document.getElementById("pending");
  pend.hidden = !pending;
  pend.replaceChildren();
  if (pending) {
    pend.appendChild(el("p", {class: "pending-title"}, "New roll, not yet accepted:"));
    const list = el("ul", {class: "problems"});
    for (const p of table.problems || []) list.appendChild(el("li", {}, p));
    pend.appendChild(list);
    pend.appendChild(el("p", {class: "hint"}, "Fix the dice on the table, tap a die to say what it shows, or accept the dice as read."));
  }

  // The dice: while pending only what was just read; else the engine's dice (as read, when the camera read them).
  const diceBox = document.getElementById("dice");
  diceBox.replaceChildren();
  const fromTable = seen.length > 0 && (pending || camera);
  const values = fromTable ? seen.map((d) => d.value) : (live.dice || []);
  const holds = !pending && Array.isArray(live.holds) ? live.holds : [];
  const mask = holds.length ? holdMask(values, holds[0].keep) : values.map(() => false);
  values.forEach((v, i) => {
    const d = fromTable ? seen[i] : {colour: "white"};
    const extra = [];
    if (mask[i]) extra.push("hold");
    // Doubt is shown while the reading waits; once accepted as read, the dice are the roll.
    if (pending && d.unsure) extra.push("unsure");
    if (pending && d.cocked) extra.push("cocked");
    if (d.corrected) extra.push("corrected");
    const die = drawDie(el, v, d.colour, extra);
    die.dataset.index = i;
    if (fromTable) die.addEventListener("click", () => openCorrection(ctx, i));
    else die.disabled = true;
    diceBox.appendChild(die);
  });
  document.getElementById("dice-note").textContent = pending ? ""
    : mask.some(Boolean) ? "Outlined: the dice the advisor would keep." : "";

  document.getElementById("accept").hidden = !pending;
  document.getElementById("turn-undo").disabled = !game.action_count;
  const stopAction = legalIn(ctx, "stop")[0];
  document.getElementById("stop").hidden = pending || !stopAction;
  // The camera cannot see a re-roll that lands on exactly the same faces: the players say so here.
  document.getElementById("same-roll").hidden = pending || !camera || live.phase !== "hold";

  renderRollEntry(s, ctx, {pending, camera, finished, live});
  renderAdvice(game, live, ctx, pending);
  renderSheet(game, live, ctx, pending);
  renderKeeper(game, live, ctx, camera);
  document.getElementById("camera-card").hidden = !camera || !s.camera || s.camera.status === "none";
}

function renderRollEntry(s, ctx, {pending, camera, finished, live}) {
  const form = document.getElementById("roll-form");
  const chance = ctx.legal ? ctx.legal.chance : (s.game.chance || null);
  // Offline the players type every roll: when one is awaited, and in the hold phase (a re-roll is typed as
  // all six dice as they lie then). With the camera the camera does it.
  const hold = live.phase === "hold";
  const cameraDown = !s.camera || s.camera.status !== "ok";
  const show = (!camera || cameraDown) && !pending && !finished && (chance || hold);
  form.hidden = !show;
  if (!show) return;
  const what = document.getElementById("roll-what");
  const example = chance ? chance.example : (live.dice || []).length ? `roll ${live.dice.join(" ")}` : "";
  what.textContent = chance ? cap(chance.what) : "Re-rolled? Enter all six dice as they lie now (or end the turn)";
  parts.rollInput.placeholder = example;
  document.getElementById("roll-example").textContent = example ? `For example: ${example}` : "";
  const key = JSON.stringify([s.game.action_count]);
  if (key !== parts.rollKey) { parts.rollKey = key; parts.rollInput.value = ""; }
}

function cap(t) {
  t = String(t || "");
  return t ? t[0].toUpperCase() + t.slice(1) : t;
}

function renderAdvice(game, live, ctx, pending) {
  const {el} = ctx;
  const list = document.getElementById("advice");
  list.replaceChildren();
  const note = document.getElementById("advice-note");
  const holds = document.getElementById("holds");
  holds.textContent = "";
  if (pending) { note.textContent = "Advice follows once the new roll is accepted."; return; }
  const sheet = live.totals && live.player ? (live.totals[live.player] || 0) : 0;
  const final = (r) => (typeof r.final === "number" ? r.final : typeof r.value === "number" ? sheet + r.value : null);
  const titles = {};
  for (const c of live.categories || []) titles[c.name] = c.title;
  const ranking = live.ranking || [];
  note.textContent = ranking.length ? "Categories, best first, by the expected final total (the sheet's points now plus what the rest of the game should bring)."
    : (live.holds || []).length ? "" : "Advice appears after a roll.";
  for (const r of ranking) {
    const item = el("li", {class: r.category === live.selection ? "selected" : "", "data-category": r.category});
    item.appendChild(el("span", {class: "what"}, titles[r.category] || r.category));
    const f = final(r);
    if (f !== null) item.appendChild(el("span", {class: "figure"}, ` · expected final total ${fmt(f)}`));
    list.appendChild(item);
  }
  const best = (live.holds || [])[0];
  if (best) {
    const f = final(best);
    holds.textContent = `Keep ${best.keep.length ? best.keep.join(" ") : "nothing"}` + (f !== null ? ` · expected final total ${fmt(f)}` : "");
  }
}

function renderSheet(game, live, ctx, pending) {
  const {el} = ctx;
  const sheet = document.getElementById("sheet");
  sheet.replaceChildren();
  const chooses = {};
  if (!pending) for (const a of legalIn(ctx, "choose")) chooses[a.text.split(/\s+/).pop()] = a;
  const showNow = !pending && (live.dice || []).length > 0;
  const head = el("tr");
  head.appendChild(el("th", {}, "Category"));
  if (showNow) head.appendChild(el("th", {title: "points these dice would score"}, "Now"));
  const winners = (game.status && game.status.winners) || [];
  const finished = !!(game.status && game.status.finished);
  for (const p of game.players) {
    head.appendChild(el("th", {class: [p === live.player ? "to-move" : "", finished && winners.includes(p) ? "won" : ""].join(" ").trim() || null,
      "data-player": p}, p));
  }
  sheet.appendChild(head);
  for (const c of live.categories || []) {
    const row = el("tr", {"data-category": c.name, class: !pending && c.name === live.selection ? "selected" : null});
    const name = el("td");
    const choose = chooses[c.name];
    if (choose) {
      const b = el("button", {type: "button", class: "choose", "data-category": c.name, "data-text": choose.text, title: choose.label}, c.title);
      b.addEventListener("click", () => ctx.post("/api/action", {text: choose.text}, "sheet"));
      name.appendChild(b);
    } else {
      name.textContent = c.title + (c.name === live.category ? " ◀" : "");
    }
    row.appendChild(name);
    if (showNow) row.appendChild(el("td", {class: "now num"}, c.now === null || c.now === undefined ? "" : c.now));
    for (const p of game.players) {
      const v = ((live.sheets || {})[p] || {})[c.name];
      row.appendChild(el("td", {class: "num"}, v === null || v === undefined ? "" : v));
    }
    sheet.appendChild(row);
  }
  const total = el("tr", {class: "total"});
  total.appendChild(el("td", {}, "Total"));
  if (showNow) total.appendChild(el("td"));
  for (const p of game.players) {
    const crown = finished && winners.includes(p) ? " ♛" : "";
    total.appendChild(el("td", {"data-player": p, class: "num"}, String((live.totals || {})[p] ?? "") + crown));
  }
  sheet.appendChild(total);
}

function renderKeeper(game, live, ctx, camera) {
  const {el} = ctx;
  const card = document.getElementById("offline");
  const show = !camera && live.phase === "roll";
  card.hidden = !show;
  const select = document.getElementById("enter-category");
  const open = (live.categories || []).filter((c) => c.open);
  const key = open.map((c) => c.name).join(",");
  if (parts.openKey !== key) {
    parts.openKey = key;
    select.replaceChildren();
    for (const c of open) select.appendChild(el("option", {value: c.name}, c.title));
  }
  renderPoints(ctx);
}

// The points select: the entries of the chosen category, as the engine words them ("Write 3 in Ones").
function renderPoints(ctx) {
  const category = document.getElementById("enter-category").value;
  const points = document.getElementById("enter-points");
  const entries = ctx.legal && Array.isArray(ctx.legal.entries) ? ctx.legal.entries : [];
  const mine = entries.filter((e) => e.text.split(" ")[1] === category);
  const key = `${category}:${mine.map((e) => e.text).join(",")}`;
  if (parts.pointsKey === key) return;
  parts.pointsKey = key;
  const kept = points.value;
  points.replaceChildren();
  for (const e of mine) {
    points.appendChild(ctx.el("option", {value: e.text}, e.text.split(" ").slice(2).join(" ")));
  }
  if (mine.some((e) => e.text === kept)) points.value = kept;
}
