// The generic view of a game, for every game without a view of its own (Pyradice, Pyramido, Dice Treasure
// until their boards are drawn): whose turn and what is awaited, the legal actions as buttons grouped as the
// engine groups them, an entry box when chance is awaited, every player's score breakdown, the recent
// actions in words, and the engine's state for whoever wants to look. It never composes engine notation:
// a button posts the text /api/legal gave it; the chance box posts what the players typed.

/** Past this many actions a filter box helps find one. */
const FILTER_FROM = 16;

let parts = null;

export function mount(root, ctx) {
  const {el} = ctx;
  root.replaceChildren();
  const turn = el("section", {class: "card", id: "turn"});
  turn.appendChild(el("h2", {}, "Turn"));
  const status = el("p", {id: "status", class: "status"});
  turn.appendChild(status);
  const problems = el("div", {id: "table-problems"});
  turn.appendChild(problems);
  // A reading that waits for the players (camera games): accept it as read, or fix the table.
  const accept = el("button", {id: "accept", type: "button", hidden: true}, "Accept as read");
  turn.appendChild(accept);
  turn.appendChild(el("div", {class: "errors", "data-slot": "accept", "aria-live": "assertive"}));
  const last = el("p", {id: "last-action", class: "hint"});
  turn.appendChild(last);
  const hint = el("p", {id: "hint", class: "hint"});
  turn.appendChild(hint);

  const chance = el("form", {id: "chance-form", class: "chance", hidden: true, autocomplete: "off"});
  const chanceLabel = el("label", {for: "chance-text", id: "chance-what"});
  const chanceInput = el("input", {id: "chance-text", name: "text", type: "text", spellcheck: "false",
    autocapitalize: "off", autocomplete: "off"});
  const chanceRow = el("div", {class: "row"});
  chanceRow.appendChild(chanceInput);
  chanceRow.appendChild(el("button", {type: "submit", id: "chance-submit"}, "Enter"));
  const example = el("button", {type: "button", id: "chance-example", class: "link"}, "fill in the example");
  chance.appendChild(chanceLabel);
  chance.appendChild(chanceRow);
  const exampleLine = el("p", {class: "hint"});
  exampleLine.appendChild(el("span", {id: "chance-example-text"}));
  exampleLine.appendChild(document.createTextNode(" "));
  exampleLine.appendChild(example);
  chance.appendChild(exampleLine);
  chance.appendChild(el("div", {class: "errors", "data-slot": "chance", "aria-live": "assertive"}));
  turn.appendChild(chance);

  const actions = el("div", {id: "legal"});
  const filter = el("input", {id: "legal-filter", type: "search", placeholder: "filter the actions", hidden: true,
    "aria-label": "filter the actions"});
  const groups = el("div", {id: "legal-groups"});
  actions.appendChild(filter);
  actions.appendChild(groups);
  actions.appendChild(el("div", {class: "errors", "data-slot": "legal", "aria-live": "assertive"}));
  turn.appendChild(actions);
  const undoRow = el("div", {class: "actions"});
  const undo = el("button", {id: "turn-undo", type: "button", class: "undo"}, "Undo last action");
  undoRow.appendChild(undo);
  turn.appendChild(undoRow);
  turn.appendChild(el("div", {class: "errors", "data-slot": "turn-undo", "aria-live": "assertive"}));
  root.appendChild(turn);

  const scores = el("section", {class: "card", id: "scores-card"});
  scores.appendChild(el("h2", {}, "Scores"));
  const table = el("table", {id: "scores"});
  const wrap = el("div", {class: "scroll"});
  wrap.appendChild(table);
  scores.appendChild(wrap);
  root.appendChild(scores);

  const details = el("details", {class: "card", id: "state-card"});
  details.appendChild(el("summary", {}, "The game's state as the engine holds it"));
  const pre = el("pre", {id: "state-json"});
  details.appendChild(pre);
  root.appendChild(details);

  chance.addEventListener("submit", async (e) => {
    e.preventDefault();
    const text = chanceInput.value.trim();
    if (!text) { ctx.showError("chance", "type what was rolled or drawn first (see the example)"); return; }
    const data = await ctx.post("/api/action", {text}, "chance");
    if (!data.error) chanceInput.value = "";
  });
  example.addEventListener("click", () => { chanceInput.value = chanceInput.dataset.example || ""; chanceInput.focus(); });
  filter.addEventListener("input", () => applyFilter());
  undo.addEventListener("click", () => ctx.post("/api/undo", {}, "turn-undo"));
  accept.addEventListener("click", () => ctx.post("/api/confirm", {}, "accept"));
  parts = {root, status, problems, last, hint, chance, chanceLabel, chanceInput, filter, groups, table, pre, details,
    legalKey: null, chanceKey: null};
}

function applyFilter() {
  const words = parts.filter.value.trim().toLowerCase();
  for (const b of parts.groups.querySelectorAll("button.legal")) {
    const hay = `${b.textContent} ${b.dataset.text}`.toLowerCase();
    b.hidden = words !== "" && !hay.includes(words);
  }
  for (const g of parts.groups.querySelectorAll(".group")) {
    g.hidden = !g.querySelector("button.legal:not([hidden])");
  }
}

function statusLine(game) {
  const st = game.status || {};
  if (st.finished) {
    const w = st.winners || [];
    return w.length ? `Game over: ${w.join(" and ")} ${w.length > 1 ? "share the win" : "wins"}.` : "Game over.";
  }
  const who = st.awaiting === "chance"
    ? (st.to_move ? `${st.to_move}'s turn, waiting for the table` : "Waiting for the table")
    : (st.to_move ? `${st.to_move} to move` : "To move");
  return st.phase ? `${who} · ${st.phase}` : who;
}

function renderLegal(s, ctx) {
  const {el} = ctx;
  const legal = ctx.legal;
  const list = legal && Array.isArray(legal.legal) ? legal.legal : [];
  const key = JSON.stringify([legal ? legal.version : null, list.map((a) => a.text)]);
  if (key === parts.legalKey) return;
  parts.legalKey = key;
  parts.groups.replaceChildren();
  const order = [];
  const byGroup = new Map();
  for (const a of list) {
    const g = a.group || "actions";
    if (!byGroup.has(g)) { byGroup.set(g, []); order.push(g); }
    byGroup.get(g).push(a);
  }
  for (const g of order) {
    const box = el("fieldset", {class: "group", "data-group": g});
    box.appendChild(el("legend", {}, `${g} (${byGroup.get(g).length})`));
    const row = el("div", {class: "buttons"});
    for (const a of byGroup.get(g)) {
      const b = el("button", {type: "button", class: "legal", "data-text": a.text, title: a.text}, a.label || a.text);
      b.addEventListener("click", () => {
        if (!ctx.paired) { ctx.showError("legal", "this browser is not paired: press “Pair this browser”, then CONFIRM on the device"); return; }
        ctx.post("/api/action", {text: a.text}, "legal");
      });
      row.appendChild(b);
    }
    box.appendChild(row);
    parts.groups.appendChild(box);
  }
  const game = s.game;
  if (!list.length && game && !game.status.finished && !(legal && legal.chance)) {
    parts.groups.appendChild(el("p", {class: "hint"}, legal ? "No decision to make now." : "The legal actions could not be loaded; reload the page."));
  }
  parts.filter.hidden = list.length < FILTER_FROM;
  applyFilter();
}

/** The action the panel's CONFIRM would take (NEXT moves it), marked among the buttons. */
function markCursor(s) {
  const live = (s.game && s.game.live) || {};
  const text = live.cursor ? live.cursor.text : null;
  for (const b of parts.groups.querySelectorAll("button.legal")) {
    const on = text !== null && b.dataset.text === text;
    b.classList.toggle("cursor", on);
    if (on) b.setAttribute("aria-current", "true"); else b.removeAttribute("aria-current");
  }
}

function renderChance(s, ctx) {
  const chance = ctx.legal ? ctx.legal.chance : (s.game.chance || null);
  parts.chance.hidden = !chance;
  if (!chance) { parts.chanceKey = null; return; }
  const key = JSON.stringify([chance.what, chance.example, s.game.action_count]);
  if (key === parts.chanceKey) return;
  const fresh = parts.chanceKey === null;
  parts.chanceKey = key;
  parts.chanceLabel.textContent = capital(chance.what);
  parts.chanceInput.placeholder = chance.example || "";
  parts.chanceInput.dataset.example = chance.example || "";
  parts.root.querySelector("#chance-example-text").textContent = chance.example ? `For example: ${chance.example}` : "";
  if (fresh) parts.chanceInput.value = "";
}

function capital(text) {
  const t = String(text || "");
  return t ? t[0].toUpperCase() + t.slice(1) : t;
}

function renderScores(game, ctx) {
  const {el} = ctx;
  const table = parts.table;
  table.replaceChildren();
  const players = game.players || Object.keys(game.scores || {});
  const scores = game.scores || {};
  const rows = [];
  for (const p of players) {
    for (const k of Object.keys((scores[p] || {}).breakdown || {})) if (!rows.includes(k)) rows.push(k);
  }
  const head = el("tr");
  head.appendChild(el("th", {}, ""));
  const st = game.status || {};
  for (const p of players) {
    const cls = [p === st.to_move && !st.finished ? "to-move" : "", (st.winners || []).includes(p) ? "won" : ""].join(" ").trim();
    head.appendChild(el("th", {class: cls || null, "data-player": p}, p + ((st.winners || []).includes(p) && st.finished ? " ♛" : "")));
  }
  table.appendChild(head);
  for (const k of rows) {
    const tr = el("tr", {"data-row": k});
    tr.appendChild(el("th", {scope: "row"}, k));
    for (const p of players) {
      const v = ((scores[p] || {}).breakdown || {})[k];
      tr.appendChild(el("td", {class: "num"}, v === undefined || v === null ? "" : v));
    }
    table.appendChild(tr);
  }
  const total = el("tr", {class: "total"});
  total.appendChild(el("th", {scope: "row"}, "Total"));
  for (const p of players) total.appendChild(el("td", {class: "num", "data-player": p}, (scores[p] || {}).total ?? ""));
  table.appendChild(total);
}

export function render(s, ctx) {
  const game = s.game;
  if (!game || !parts) return;
  parts.status.textContent = statusLine(game);
  parts.problems.replaceChildren();
  for (const p of (s.table && s.table.problems) || []) parts.problems.appendChild(ctx.el("p", {class: "warning"}, p));
  parts.root.querySelector("#accept").hidden = !(s.table && s.table.pending);
  const acts = game.actions || [];
  const last = acts.length ? acts[acts.length - 1] : null;
  parts.last.textContent = last ? `Last: ${last.words || last.text}` : "No action yet.";
  parts.root.querySelector("#turn-undo").disabled = !game.action_count;
  renderChance(s, ctx);
  renderLegal(s, ctx);
  if (ctx.panelMode !== "none") markCursor(s);
  parts.hint.textContent = (game.live && game.live.hint) || "";
  renderScores(game, ctx);
  if (parts.details.open || !parts.pre.textContent) parts.pre.textContent = JSON.stringify(game.state, null, 1);
  parts.details.ontoggle = () => { if (parts.details.open) parts.pre.textContent = JSON.stringify((ctx.snapshot.game || {}).state, null, 1); };
}
