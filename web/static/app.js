// The page's shell: header, camera badge, pairing, warnings, virtual panel, last actions, set-up form,
// export link. The game's own view is one ES module per game under ./games/, chosen by game.name
// (Paša's rich view in pasa.js, every other game in generic.js until it draws its own board).
// Each game module exports mount(root, ctx) and render(snapshot, ctx).
//
// Everything drawn comes from the JSON snapshot (SSE /api/events) and the legal actions (/api/legal,
// fetched again whenever the snapshot's version changes). Changes go out as JSON POSTs with the CSRF
// token. No framework, no build step, no network beyond this device, nothing evaluated from strings.

const csrf = document.querySelector('meta[name="csrf-token"]').content;
const panelMode = document.querySelector('meta[name="panel-mode"]').content;

/** Games with a view of their own; any other game gets the generic view. */
const VIEWS = {
  pasa: "./games/pasa.js",
  pyradice: "./games/pyradice.js",
  pyramido: "./games/pyramido.js",
  dicetreasure: "./games/dicetreasure.js",
};
const GENERIC = "./games/generic.js";

let paired = document.getElementById("pairing").dataset.paired === "yes";
let latest = null; // the newest snapshot
let legal = null; // the newest /api/legal answer
let legalFor = -1; // the snapshot version legal was asked for
let fetchSeq = 0;
let view = null; // {name, module, root}
let viewLoading = null;
let catalog = null;

// --- small helpers, also given to the game modules through ctx ------------------------------------
export function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    node.setAttribute(k, v === true ? "" : String(v));
  }
  if (text !== "" && text !== null && text !== undefined) node.textContent = String(text);
  return node;
}

function slotOf(where) {
  if (where instanceof Element) {
    if (where.classList.contains("errors")) return where;
    // the nearest error slot after the control, else the one in its card
    const card = where.closest(".card, form, section") || document.body;
    return card.querySelector(".errors") || document.querySelector('.errors[data-slot="pairing"]');
  }
  return document.querySelector(`.errors[data-slot="${where}"]`)
    || document.querySelector('.errors[data-slot="pairing"]');
}

/** Show ``message`` in the error slot next to the control the player used; it stays until dismissed. */
export function showError(where, message) {
  const slot = slotOf(where);
  const text = String(message || "something went wrong");
  for (const p of slot.querySelectorAll(".error")) {
    if (p.dataset.message === text) { p.classList.remove("flash"); void p.offsetWidth; p.classList.add("flash"); return p; }
  }
  const p = el("p", {class: "error", role: "alert", "data-message": text});
  p.appendChild(el("span", {class: "message"}, text));
  const dismiss = el("button", {type: "button", class: "dismiss", "aria-label": "dismiss this message", title: "dismiss"}, "×");
  dismiss.addEventListener("click", () => p.remove());
  p.appendChild(dismiss);
  slot.appendChild(p);
  p.scrollIntoView({block: "nearest", behavior: "instant"});
  return p;
}

export function clearErrors(where) {
  slotOf(where).querySelectorAll(".error").forEach((p) => p.remove());
}

/** POST ``body`` as JSON; on a refusal show the server's reason next to ``where``. Returns the JSON. */
export async function post(url, body = {}, where = "pairing") {
  // An action or an undo says which state of the game the page showed: the device refuses it (409) if the game
  // moved on in between (another player's tap, the camera, a button), rather than apply it to another decision.
  if ((url === "/api/action" || url === "/api/undo") && body.at === undefined && latest && latest.game) {
    body = {...body, at: latest.game.action_count};
  }
  let response;
  try {
    response = await fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf},
      body: JSON.stringify(body),
    });
  } catch (err) {
    showError(where, `the device did not answer (${err.message || err}); is it on?`);
    return {error: String(err), status: 0};
  }
  const data = await response.json().catch(() => ({error: response.statusText}));
  if (!response.ok) {
    if (!data.error) data.error = response.statusText || `refused (${response.status})`;
    data.status = data.status || response.status;
    if (where !== null) showError(where, data.error);
  }
  return data;
}

/**
 * Keep ``img`` showing the latest camera frame (/api/frame.jpg, drawn by the device) once a second while a
 * camera game runs; ``none`` (if given) is shown instead while there is no frame. Stops when img leaves the page.
 */
function followFrame(img, none = null) {
  img.addEventListener("error", () => { img.hidden = true; if (none) none.hidden = false; });
  img.addEventListener("load", () => { img.hidden = false; if (none) none.hidden = true; });
  const timer = setInterval(() => {
    if (!document.body.contains(img)) { clearInterval(timer); return; }
    const s = latest;
    if (s && s.camera && s.camera.status !== "none" && s.game && s.game.mode === "camera") img.src = `/api/frame.jpg?v=${Date.now()}`;
  }, 1000);
}

function ctx() {
  return {
    el, post, showError, clearErrors, followFrame,
    get legal() { return legal; },
    get paired() { return paired; },
    get snapshot() { return latest; },
    panelMode,
  };
}

// --- the shell ------------------------------------------------------------------------------------
function renderShell(s) {
  const game = s.game;
  document.getElementById("title").textContent = game ? `${game.title} · game ${game.id}` : "Table Companion";
  document.title = game ? `${game.title} · Table Companion` : "Table Companion";
  const pieces = document.getElementById("pieces");  // which deck a game plays (a stand-in is said)
  pieces.hidden = !(game && game.pieces);
  pieces.textContent = game && game.pieces ? game.pieces : "";
  const cam = document.getElementById("camera");
  const camera = s.camera || {status: "none"};
  cam.textContent = camera.status === "none" ? "no camera" : `camera: ${camera.status}` + (camera.detail ? ` (${camera.detail})` : "");
  cam.className = "badge " + (camera.status === "ok" ? "ok" : camera.status === "lost" ? "bad" : "");
  cam.title = camera.detail || "";

  const warnings = document.getElementById("warnings");
  warnings.replaceChildren();
  const problems = new Set(((s.table || {}).problems) || []);
  for (const w of s.warnings || []) {
    if (!problems.has(w)) warnings.appendChild(el("p", {class: "warning"}, w));
  }
  const waiting = (s.table || {}).waiting;  // the camera waits for the table, asking nothing
  if (waiting) warnings.appendChild(el("p", {class: "note", id: "table-waiting"}, `The camera waits: ${waiting}.`));
  if (s.pairing_waiting) {
    const code = s.pairing_code ? ` (code ${s.pairing_code})` : "";
    warnings.appendChild(el("p", {class: "warning", id: "pairing-asked"},
      `A browser asks to pair${code}: press CONFIRM on the device if it is one at this table.`));
  }

  const problem = document.getElementById("setup-problem");
  problem.hidden = !s.setup_problem;
  problem.replaceChildren();
  if (s.setup_problem) {
    problem.appendChild(el("h2", {}, "A game could not be loaded"));
    problem.appendChild(el("p", {}, s.setup_problem));
    problem.appendChild(el("p", {class: "hint"}, "It was skipped. Set up a new game below."));
  }

  if (catalog && !game) defaultMode();
  if (catalog && game) followGame();
  renderGameOver(game);
  renderLog(game);
  renderHint(game);
  document.getElementById("undo").disabled = !game || !game.action_count;
  document.getElementById("export").href = game ? `/api/games/${game.id}` : "#";
  document.getElementById("export").hidden = !game;
  renderButtons(game);
  const leds = s.leds || {};
  for (const name of ["ready", "attention"]) {
    document.getElementById(`led-${name}`).className = `led ${name} ${leds[name] || "off"}`;
  }
}

const BUTTON_NAMES = {confirm: "CONFIRM", confirm_long: "CONFIRM (hold)", next: "NEXT", undo: "UNDO"};

function renderButtons(game) {
  const list = document.getElementById("button-meanings");
  list.replaceChildren();
  const meanings = (game && game.buttons) || {};
  for (const [key, name] of Object.entries(BUTTON_NAMES)) {
    if (!meanings[key]) continue;
    list.appendChild(el("dt", {}, name));
    list.appendChild(el("dd", {"data-button": key}, meanings[key]));
  }
  if (!list.childElementCount) list.appendChild(el("dd", {class: "hint"}, game ? "nothing now" : "no game running"));
  document.querySelectorAll("#virtual-panel button[data-button]").forEach((b) => {
    const key = b.dataset.button + (b.dataset.long === "true" ? "_long" : "");
    b.title = meanings[key] || "";
  });
}

function listNames(names) {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

function renderGameOver(game) {
  const box = document.getElementById("game-over");
  const over = !!(game && game.status && game.status.finished);
  box.hidden = !over;
  box.replaceChildren();
  if (!over) return;
  const winners = game.status.winners || [];
  const scores = game.scores || {};
  const top = winners.length ? (scores[winners[0]] || {}).total : null;
  box.appendChild(el("h2", {}, "Game over"));
  let line;
  if (!winners.length) line = "Nobody won.";
  else if (winners.length === 1) line = `${winners[0]} wins` + (top !== null && top !== undefined ? ` with ${top} points.` : ".");
  else line = `${listNames(winners)} share the win` + (top !== null && top !== undefined ? ` with ${top} points each.` : ".");
  box.appendChild(el("p", {class: "winner"}, line));
  const table = el("table", {class: "final"});
  const head = el("tr");
  head.appendChild(el("th", {}, "Player"));
  head.appendChild(el("th", {}, "Final total"));
  table.appendChild(head);
  const order = Object.keys(scores).sort((a, b) => (scores[b].total || 0) - (scores[a].total || 0));
  for (const p of order) {
    const row = el("tr", {class: winners.includes(p) ? "won" : ""});
    row.appendChild(el("td", {}, p + (winners.includes(p) ? " ♛" : "")));
    row.appendChild(el("td", {"data-player": p}, scores[p].total));
    table.appendChild(row);
  }
  box.appendChild(table);
  box.appendChild(el("p", {class: "hint"}, "The full sheet is below. Start the next game with the form at the bottom"
    + (panelMode !== "none" ? " or hold CONFIRM on the device." : ".")));
}

function renderLog(game) {
  const list = document.getElementById("log");
  list.replaceChildren();
  const actions = game ? (game.actions || []) : [];
  const count = game ? (game.action_count || actions.length) : 0;
  list.setAttribute("start", String(count));
  for (const a of actions.slice().reverse()) {
    const item = el("li", {title: a.text});
    item.appendChild(el("span", {class: "words"}, a.words || a.text));
    if (a.origin && a.origin !== "page") item.appendChild(el("span", {class: "origin"}, ` · ${a.origin}`));
    list.appendChild(item);
  }
  if (!actions.length) list.appendChild(el("li", {class: "hint empty"}, game ? "Nothing yet." : "No game running."));
}

// --- the game's view -------------------------------------------------------------------------------
async function ensureView(game) {
  const root = document.getElementById("game-root");
  const name = game ? game.name : "";
  const wanted = game ? (VIEWS[name] || GENERIC) : null;
  if (view && view.name === name && view.gameId === (game ? game.id : null)) return view;
  if (viewLoading && viewLoading.name === name) return viewLoading.promise;
  const promise = (async () => {
    root.replaceChildren();
    document.body.dataset.game = name;
    if (!wanted) {
      const card = el("div", {class: "card empty-game"});
      card.appendChild(el("h2", {}, "No game running"));
      const p = el("p", {}, "Set up a game with the form ");
      const a = el("a", {href: "#setup"}, "below");
      p.appendChild(a);
      p.appendChild(document.createTextNode("."));
      card.appendChild(p);
      root.appendChild(card);
      view = {name, gameId: null, module: null, root};
      return view;
    }
    let used = wanted, module;
    try {
      module = await import(wanted);
    } catch (err) {  // a game whose own view is missing from this build is shown by the generic one
      console.warn(`no view for ${name} (${err}); showing the generic view`);
      used = GENERIC;
      module = await import(GENERIC);
    }
    const mine = el("div", {class: `game-view game-${name}`, "data-view": used.endsWith("generic.js") ? "generic" : name});
    root.replaceChildren(mine);
    module.mount(mine, ctx());
    view = {name, gameId: game.id, module, root: mine};
    return view;
  })();
  viewLoading = {name, promise};
  try {
    return await promise;
  } finally {
    viewLoading = null;
  }
}

async function fetchLegal(version) {
  try {
    const response = await fetch("/api/legal", {credentials: "same-origin", cache: "no-store"});
    if (!response.ok) return null;
    const data = await response.json();
    data.for = version;
    return data;
  } catch (err) {
    return null;
  }
}

async function onSnapshot(s) {
  latest = s;
  renderShell(s);
  const mine = ++fetchSeq;
  if (s.game && legalFor !== s.version) {
    const got = await fetchLegal(s.version);
    if (mine !== fetchSeq) return; // a newer snapshot is on its way
    legal = got;
    legalFor = s.version;
  } else if (!s.game) {
    legal = null;
  }
  let v;
  try {
    v = await ensureView(s.game);
  } catch (err) {
    showError("pairing", `the page for ${s.game ? s.game.title : "this game"} could not be loaded (${err.message || err}); reload the page`);
    return;
  }
  if (mine !== fetchSeq) return;
  if (v.module) {
    try {
      v.module.render(latest, ctx());
    } catch (err) {
      showError("pairing", `the page could not draw this game: ${err.message || err}`);
      throw err;
    }
  }
  document.body.dataset.version = String(s.version);
}

// --- the hint: the decision now's options ranked by the engine's playouts, only when asked ------------
let hintFor = null; // "game id:action count" the shown hint was asked at

function hintCard() {
  let card = document.getElementById("hint-card");
  if (card) return card;
  card = el("section", {id: "hint-card", class: "card", hidden: true, "aria-live": "polite"});
  card.appendChild(el("h2", {}, "Hint"));
  card.appendChild(el("p", {class: "hint"},
    "Only if you want it: the options for the decision now, best first, by the expected final margin over the "
    + "best other player in seeded playouts of the engine's simulator (a stand-in for real players), or exactly "
    + "where the engine can work it out (Paša's advisor, Pyramido's gem activation)."));
  const actions = el("div", {class: "actions"});
  const button = el("button", {id: "hint-button", type: "button"}, "Hint");
  button.addEventListener("click", askHint);
  actions.appendChild(button);
  card.appendChild(actions);
  card.appendChild(el("p", {id: "hint-summary", class: "hint", hidden: true}));
  card.appendChild(el("ol", {id: "hint-options"}));
  card.appendChild(el("div", {class: "errors", "data-slot": "hint", "aria-live": "assertive"}));
  document.getElementById("game-root").after(card);
  return card;
}

function renderHint(game) {
  const card = hintCard();
  const status = (game && game.status) || {};
  card.hidden = !game || Boolean(status.finished);
  const key = game ? `${game.id}:${game.action_count}` : null;
  if (key !== hintFor) {  // the table moved on: a hint for another position would mislead
    document.getElementById("hint-options").replaceChildren();
    document.getElementById("hint-summary").hidden = true;
    card.dataset.state = "none";
    hintFor = null;
  }
}

function signed(x) {
  return (x > 0 ? "+" : x < 0 ? "−" : "±") + Math.abs(x).toFixed(1);
}

async function askHint(event) {
  const button = event.currentTarget;
  const card = hintCard();
  const game = latest && latest.game;
  const key = game ? `${game.id}:${game.action_count}` : null;
  clearErrors("hint");
  button.disabled = true;
  card.dataset.state = "working";
  const summary = document.getElementById("hint-summary");
  summary.hidden = false;
  summary.textContent = "Working it out…";
  let data;
  try {
    const response = await fetch("/api/hint", {credentials: "same-origin", cache: "no-store"});
    data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(data.error || `the device answered ${response.status}`);
  } catch (err) {
    summary.hidden = true;
    card.dataset.state = "none";
    showError("hint", `no hint: ${err.message || err}`);
    return;
  } finally {
    button.disabled = false;
  }
  const list = document.getElementById("hint-options");
  list.replaceChildren();
  hintFor = key;
  const hint = data.hint;
  if (!hint) {
    summary.textContent = data.reason || "no hint now";
    card.dataset.state = "none";
    return;
  }
  summary.textContent = `${hint.player}: ${hint.decision}. Best first, by ${hint.measure}`
    + (hint.rounds ? ` (${hint.rounds} playout${hint.rounds === 1 ? "" : "s"} per option to ${hint.horizon}, `
      + `${Math.round(hint.elapsed_ms)} ms).` : ".")
    + (hint.note ? ` ${hint.note.charAt(0).toUpperCase()}${hint.note.slice(1)}.` : "");
  for (const o of hint.options) {
    const li = el("li", {class: "hint-option", "data-text": o.text});
    li.appendChild(el("span", {class: "words"}, o.label));
    let figure;
    if (o.exact) figure = ` ${Number(o.value).toFixed(1)} (exact)`;
    else if (o.playouts > 1) figure = ` ${signed(o.value)} (± ${o.stderr.toFixed(1)}, ${o.playouts} playouts)`;
    else if (o.playouts) figure = ` ${signed(o.value)} (1 playout only: a guess)`;
    else figure = " (not played out" + (o.prior === null ? ")" : `; scores ${o.prior} now)`);
    li.appendChild(el("span", {class: "value"}, figure));
    list.appendChild(li);
  }
  card.dataset.state = "shown";
}

// --- set-up form, built from /api/catalog ------------------------------------------------------------
async function loadCatalog() {
  try {
    const response = await fetch("/api/catalog", {credentials: "same-origin"});
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || response.statusText);
    catalog = data.games || [];
  } catch (err) {
    showError("setup", `the list of games could not be loaded (${err.message || err}); reload the page`);
    catalog = [];
  }
  const select = document.getElementById("setup-game");
  select.replaceChildren();
  for (const g of catalog) select.appendChild(el("option", {value: g.name}, g.title));
  drawSetupFor(select.value);
  followGame();
}

let formTouched = false;
let formFor = null;

/** Until a player edits the form, it shows the running game's set-up (the next game starts alike). */
function followGame() {
  if (formTouched || !catalog || !latest || !latest.game) return;
  const game = latest.game;
  if (formFor === game.id) return;
  if (!gameEntry(game.name)) return;
  formFor = game.id;
  const select = document.getElementById("setup-game");
  if (select.value !== game.name) { select.value = game.name; drawSetupFor(game.name); }
  document.getElementById("setup-players").value = (game.players || []).join(", ");
  for (const [name, value] of Object.entries(game.options || {})) {
    const option = document.querySelector(`#setup-options select[data-option="${CSS.escape(name)}"]`);
    const words = document.querySelector(`#setup-options input[data-option-text="${CSS.escape(name)}"]`);
    if (option && [...option.options].some((o) => o.value === value)) option.value = value;
    else if (option && words) {  // the words of a table's set-up: its choice, and the words again
      option.value = option.options[option.options.length - 1].value;
      words.value = value;
      words.hidden = false;
    }
  }
  if (gameEntry(game.name).live === "camera") {
    document.getElementById("setup-mode").value = game.mode === "camera" ? "camera" : "offline";
  }
}

function gameEntry(name) {
  return (catalog || []).find((g) => g.name === name) || null;
}

function drawSetupFor(name) {
  const entry = gameEntry(name);
  const options = document.getElementById("setup-options");
  options.querySelectorAll(".option").forEach((n) => n.remove());
  const mode = document.getElementById("setup-mode");
  mode.replaceChildren();
  const note = document.getElementById("setup-game-note");
  const hint = document.getElementById("setup-players-hint");
  if (!entry) { options.hidden = true; note.textContent = ""; hint.textContent = ""; return; }
  const [min, max] = entry.players;
  hint.textContent = min === max ? `${min} player${min === 1 ? "" : "s"}` : `${min} to ${max} players, names of 1 to 24 characters, each different`;
  const names = Object.keys(entry.options || {});
  options.hidden = names.length === 0;
  for (const optName of names) {
    const opt = entry.options[optName];
    const id = `setup-option-${optName}`;
    const wrap = el("div", {class: "option"});
    const label = el("label", {for: id}, optName.replaceAll("_", " "));
    const select = el("select", {id, "data-option": optName, "aria-describedby": `${id}-doc`});
    for (const choice of opt.choices) {
      select.appendChild(el("option", {value: choice}, choice === opt.default ? `${choice} (default)` : choice));
    }
    select.value = opt.default;
    label.appendChild(select);
    wrap.appendChild(label);
    if (opt.text) {
      // The option's last choice takes words the players type (what their table shows): asked only for it.
      const words = el("input", {id: `${id}-text`, type: "text", "data-option-text": optName, size: "60",
        placeholder: opt.text, "aria-label": `${optName.replaceAll("_", " ")}: what the table shows`});
      const shown = () => { words.hidden = select.value !== opt.choices[opt.choices.length - 1]; };
      select.addEventListener("change", shown);
      shown();
      wrap.appendChild(words);
    }
    wrap.appendChild(el("p", {class: "hint doc", id: `${id}-doc`}, opt.doc || ""));
    options.appendChild(wrap);
  }
  if (entry.live === "camera") mode.appendChild(el("option", {value: "camera"}, "camera: the device watches the table"));
  mode.appendChild(el("option", {value: "offline"}, "offline: enter every move on this page"));
  defaultMode();
  note.textContent = entry.live === "camera" ? "" : `${entry.title} is played offline on this page for now: the camera cannot follow it yet.`;
}

let modeTouched = false;

/** Camera mode for a game the camera can follow, when this device has a camera; else offline. */
function defaultMode() {
  if (modeTouched) return;
  const entry = gameEntry(document.getElementById("setup-game").value);
  if (!entry) return;
  const noCamera = !latest || !latest.camera || latest.camera.status === "none";
  document.getElementById("setup-mode").value = entry.live === "camera" && !noCamera ? "camera" : "offline";
}

const PRINTABLE = /^[^\p{C}]+$/u;

function checkPlayers(entry, names) {
  const [min, max] = entry.players;
  if (names.length < min || names.length > max) {
    return `${entry.title} takes ${min === max ? min : `${min} to ${max}`} players; ${names.length} given`;
  }
  for (const n of names) {
    if (n.length < 1 || n.length > 24) return `a player's name must have 1 to 24 characters: "${n}"`;
    if (!PRINTABLE.test(n)) return `a player's name must be printable characters only: "${n}"`;
  }
  const seen = new Set();
  for (const n of names) {
    if (seen.has(n)) return `two players are called "${n}": give each a different name`;
    seen.add(n);
  }
  return null;
}

async function submitSetup(event) {
  event.preventDefault();
  for (const slot of document.querySelectorAll('#setup-form .errors')) slot.replaceChildren();
  const name = document.getElementById("setup-game").value;
  const entry = gameEntry(name);
  if (!entry) { showError("field-game", "choose a game first"); return; }
  const raw = document.getElementById("setup-players").value;
  const players = raw.split(",").map((p) => p.trim()).filter((p) => p !== "");
  const bad = checkPlayers(entry, players);
  if (bad) { showError("field-players", bad); return; }
  const options = {};
  for (const select of document.querySelectorAll("#setup-options select[data-option]")) {
    const words = document.querySelector(`#setup-options input[data-option-text="${CSS.escape(select.dataset.option)}"]`);
    options[select.dataset.option] = words && !words.hidden && words.value.trim() !== "" ? words.value.trim() : select.value;
  }
  const body = {game: name, players, options, mode: document.getElementById("setup-mode").value};
  const seedText = document.getElementById("setup-seed").value.trim();
  if (seedText !== "") {
    const seed = Number(seedText);
    if (!Number.isInteger(seed) || seed < 0) { showError("field-seed", "the seed must be a whole number, 0 or more"); return; }
    body.seed = seed;
  }
  const button = document.getElementById("setup-start");
  button.disabled = true;
  try {
    const data = await post("/api/game", body, null);
    if (data.error) {
      const field = data.field && document.querySelector(`.errors[data-slot="field-${data.field}"]`) ? `field-${data.field}` : "setup";
      showError(field, data.error);
    } else {
      document.getElementById("game-root").scrollIntoView({block: "start"});
    }
  } finally {
    button.disabled = false;
  }
}

// --- pairing, live stream, buttons -------------------------------------------------------------------
async function pair() {
  const asked = await post("/api/pair", {}, "pairing");
  if (asked.error) return;
  const badge = document.getElementById("pairing");
  badge.textContent = asked.message;
  const deadline = Date.now() + asked.timeout_s * 1000 + 2000;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    let st;
    try {
      st = await (await fetch("/api/pair", {credentials: "same-origin"})).json();
    } catch (err) {
      continue;
    }
    if (st.paired) {
      paired = true;
      badge.textContent = "paired";
      badge.className = "badge ok";
      badge.dataset.paired = "yes";
      document.getElementById("pair-button").hidden = true;
      if (latest) onSnapshot(latest);
      return;
    }
    if (st.status === "refused") {
      badge.textContent = "pairing refused: try again";
      showError("pairing", st.message || "the device refused to pair: ask again, one browser at a time");
      return;
    }
    if (st.status === "expired" || st.status === "not asked" || st.status === "unknown") break;
  }
  badge.textContent = "pairing timed out: try again";
}

function connect() {
  const status = document.getElementById("connection");
  const source = new EventSource("/api/events");
  source.addEventListener("state", (event) => {
    status.textContent = "live";
    status.className = "badge ok";
    onSnapshot(JSON.parse(event.data));
  });
  source.onerror = () => {
    status.textContent = "reconnecting…"; status.className = "badge bad";
    // A refused stream (the device has too many open) is not retried by the browser: poll, then try again.
    if (source.readyState === EventSource.CLOSED) poll(status);
  };
}

async function poll(status) {
  for (const until = Date.now() + 30000; Date.now() < until;) {
    try {
      const response = await fetch("/api/state", {credentials: "same-origin", cache: "no-store"});
      if (response.ok) {
        status.textContent = "polling"; status.className = "badge ok";
        onSnapshot(await response.json());
      }
    } catch (err) { /* the device is away: keep trying */ }
    await new Promise((r) => setTimeout(r, 2000));
  }
  connect();
}

function start() {
  connect();
  loadCatalog();
  document.getElementById("pair-button").addEventListener("click", pair);
  document.getElementById("undo").addEventListener("click", (e) => post("/api/undo", {}, e.currentTarget));
  document.getElementById("setup-game").addEventListener("change", (e) => { modeTouched = false; drawSetupFor(e.target.value); });
  document.getElementById("setup-mode").addEventListener("change", () => { modeTouched = true; });
  document.getElementById("setup-form").addEventListener("submit", submitSetup);
  document.getElementById("setup-form").addEventListener("input", () => { formTouched = true; });
  if (panelMode === "mock") {
    document.querySelectorAll("#virtual-panel button[data-button]").forEach((b) => b.addEventListener("click", () =>
      post("/api/panel/press", {button: b.dataset.button, long: b.dataset.long === "true"}, "panel")));
  }
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
