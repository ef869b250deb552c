// The live page: draws the JSON snapshot that arrives over Server-Sent Events; sends changes as JSON
// POSTs with the CSRF token. No framework, no network beyond this device.
"use strict";

const csrf = document.querySelector('meta[name="csrf-token"]').content;
const panelMode = document.querySelector('meta[name="panel-mode"]').content;
let snapshot = null;
let paired = document.getElementById("pairing").dataset.paired === "yes";

const PIPS = {1: [5], 2: [1, 9], 3: [1, 5, 9], 4: [1, 3, 7, 9], 5: [1, 3, 5, 7, 9], 6: [1, 3, 4, 6, 7, 9]};
const COLOURS = {white: "#f4f4f0", gray: "#9a9a96", maroon: "#7a1f28", orange: "#f07a14", red: "#c8282a",
  green: "#2fa846", blue: "#1f4fae", yellow: "#ebd21e", purple: "#6a2878", black: "#232323", ivory: "#ebe1c8"};

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (text !== "") node.textContent = text;
  return node;
}

async function post(url, body = {}) {
  const response = await fetch(url, {
    method: "POST", credentials: "same-origin",
    headers: {"Content-Type": "application/json", "X-CSRF-Token": csrf},
    body: JSON.stringify(body),
  });
  const data = await response.json().catch(() => ({error: response.statusText}));
  if (!response.ok) showError(data.error || response.statusText);
  return data;
}

function showError(message) {
  const box = document.getElementById("warnings");
  const p = el("p", {class: "error"}, message);
  box.prepend(p);
  setTimeout(() => p.remove(), 6000);
}

function drawDie(value, colour, extra = []) {
  const die = el("button", {class: ["die", ...extra].join(" "), type: "button", "data-value": value,
    "aria-label": `die showing ${value}`});
  const body = COLOURS[colour] || "#f4f4f0";
  die.style.background = body;
  const dark = ["maroon", "red", "green", "blue", "purple", "black", "gray"].includes(colour);
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

function render(s) {
  snapshot = s;
  const game = s.game;
  const live = game ? game.live : null;
  document.getElementById("title").textContent = game ? `${game.title} · game ${game.id}` : "Table Companion";
  const cam = document.getElementById("camera");
  cam.textContent = `camera: ${s.camera.status}` + (s.camera.detail ? ` (${s.camera.detail})` : "");
  cam.className = "badge " + (s.camera.status === "ok" ? "ok" : s.camera.status === "lost" ? "bad" : "");
  const warnings = document.getElementById("warnings");
  warnings.querySelectorAll(".warning").forEach((n) => n.remove());
  for (const w of s.warnings) warnings.appendChild(el("p", {class: "warning"}, w));
  if (s.pairing_waiting) warnings.appendChild(el("p", {class: "warning"}, "A browser asks to pair: press CONFIRM on the device."));

  // The dice: as read on the table when there is a reading, else as the engine holds them.
  const diceBox = document.getElementById("dice");
  diceBox.replaceChildren();
  const table = s.table.dice;
  const values = table.length ? table.map((d) => d.value) : (live ? live.dice : []);
  const keep = live && live.holds.length ? live.holds[0].keep : null;
  const mask = keep ? holdMask(values, keep) : values.map(() => false);
  values.forEach((v, i) => {
    const d = table[i] || {colour: "white"};
    const extra = [];
    if (mask[i]) extra.push("hold");
    if (d.unsure) extra.push("unsure");
    if (d.cocked) extra.push("cocked");
    if (d.corrected) extra.push("corrected");
    const die = drawDie(v, d.colour, extra);
    die.dataset.index = i;
    die.addEventListener("click", () => openCorrection(i));
    diceBox.appendChild(die);
  });
  document.getElementById("accept").hidden = !s.table.pending;

  if (live) {
    document.getElementById("player").textContent = live.player || "game over";
    document.getElementById("roll").textContent = live.roll;
    document.getElementById("max-rolls").textContent = live.max_rolls;
    document.getElementById("category").textContent = live.category_title || "–";
    document.getElementById("hint").textContent = live.hint;
    document.getElementById("stop").hidden = !["hold", "stop"].includes(live.phase);
    // The camera cannot see a re-roll that lands on exactly the same faces: the players say so here.
    document.getElementById("same-roll").hidden = live.phase !== "hold" || game.mode !== "camera";
    renderAdvice(live);
    renderSheet(game, live);
    renderEntry(live);
  }
  const logList = document.getElementById("log");
  logList.replaceChildren();
  for (const a of game ? game.actions.slice().reverse() : []) logList.appendChild(el("li", {}, `${a.text} (${a.origin})`));
  document.getElementById("export").href = game ? `/api/games/${game.id}` : "#";
  const leds = s.leds || {};
  for (const name of ["ready", "attention"]) {
    const led = document.getElementById(`led-${name}`);
    led.className = `led ${name} ${leds[name] || "off"}`;
  }
  document.body.dataset.version = s.version;
}

function renderAdvice(live) {
  const list = document.getElementById("advice");
  list.replaceChildren();
  for (const r of live.ranking) {
    const title = (live.categories.find((c) => c.name === r.category) || {}).title || r.category;
    const item = el("li", {class: r.category === live.selection ? "selected" : ""},
      `${title}` + (r.value !== null ? ` · expected final total ${r.value.toFixed(1)}` : ""));
    list.appendChild(item);
  }
  const holds = document.getElementById("holds");
  holds.textContent = live.holds.length
    ? `Keep ${live.holds[0].keep.join(" ") || "nothing"}` + (live.holds[0].value !== null ? ` (expected final total ${live.holds[0].value.toFixed(1)})` : "")
    : "";
}

function renderSheet(game, live) {
  const sheet = document.getElementById("sheet");
  sheet.replaceChildren();
  const head = el("tr");
  head.appendChild(el("th", {}, "Category"));
  head.appendChild(el("th", {}, "Now"));
  for (const p of game.players) head.appendChild(el("th", {class: p === live.player ? "to-move" : ""}, p));
  sheet.appendChild(head);
  for (const c of live.categories) {
    const row = el("tr", {"data-category": c.name, class: c.name === live.selection ? "selected" : ""});
    const name = el("td");
    if (live.phase === "choose" && c.open) {
      const b = el("button", {type: "button", class: "choose", "data-category": c.name}, c.title);
      b.addEventListener("click", () => post("/api/action", {text: `choose ${c.name}`}));
      name.appendChild(b);
    } else {
      name.textContent = c.title + (c.name === live.category ? " ◀" : "");
    }
    row.appendChild(name);
    row.appendChild(el("td", {class: "now"}, c.now === null ? "" : String(c.now)));
    for (const p of game.players) {
      const v = live.sheets[p][c.name];
      row.appendChild(el("td", {}, v === null || v === undefined ? "" : String(v)));
    }
    sheet.appendChild(row);
  }
  const total = el("tr", {class: "total"});
  total.appendChild(el("td", {}, "Total"));
  total.appendChild(el("td"));
  for (const p of game.players) {
    const crown = game.status.winners.includes(p) ? " ♛" : "";
    total.appendChild(el("td", {"data-player": p}, String(live.totals[p]) + crown));
  }
  sheet.appendChild(total);
}

function renderEntry(live) {
  const select = document.getElementById("enter-category");
  const open = live.categories.filter((c) => c.open).map((c) => c.name);
  if (select.dataset.open === open.join(",")) return;
  select.dataset.open = open.join(",");
  select.replaceChildren();
  for (const c of live.categories.filter((c) => c.open)) select.appendChild(el("option", {value: c.name}, c.title));
}

function openCorrection(index) {
  if (!paired) { showError("Pair this browser to correct a die."); return; }
  const dialog = document.getElementById("correct-dialog");
  document.getElementById("correct-index").textContent = index + 1;
  dialog.returnValue = "";
  dialog.onclose = () => {
    const value = parseInt(dialog.returnValue, 10);
    if (value >= 1 && value <= 6) post("/api/correct", {index, value});
  };
  dialog.showModal();
}

function connect() {
  const status = document.getElementById("connection");
  const source = new EventSource("/api/events");
  source.addEventListener("state", (event) => {
    status.textContent = "live";
    status.className = "badge ok";
    render(JSON.parse(event.data));
  });
  source.onerror = () => { status.textContent = "reconnecting…"; status.className = "badge bad"; };
}

async function pair() {
  const asked = await post("/api/pair");
  if (asked.error) return;
  const badge = document.getElementById("pairing");
  badge.textContent = asked.message;
  const deadline = Date.now() + asked.timeout_s * 1000 + 2000;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 700));
    const st = await (await fetch("/api/pair", {credentials: "same-origin"})).json();
    if (st.paired) {
      paired = true;
      badge.textContent = "paired";
      badge.className = "badge ok";
      badge.dataset.paired = "yes";
      document.getElementById("pair-button").hidden = true;
      return;
    }
    if (st.status === "expired" || st.status === "not asked") break;
  }
  badge.textContent = "pairing timed out: try again";
}

function refreshFrame() {
  const img = document.getElementById("frame");
  if (snapshot && snapshot.camera.status !== "none") img.src = `/api/frame.jpg?v=${Date.now()}`;
}

document.addEventListener("DOMContentLoaded", () => {
  connect();
  document.getElementById("pair-button").addEventListener("click", pair);
  document.getElementById("accept").addEventListener("click", () => post("/api/confirm"));
  document.getElementById("stop").addEventListener("click", () => post("/api/action", {text: "stop"}));
  document.getElementById("undo").addEventListener("click", () => post("/api/undo"));
  document.getElementById("same-roll").addEventListener("click", () => {
    const dice = snapshot && snapshot.game ? snapshot.game.live.dice : [];
    if (dice.length) post("/api/action", {text: `roll ${dice.join(" ")}`});
  });
  document.getElementById("enter-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const category = document.getElementById("enter-category").value;
    const points = document.getElementById("enter-points").value;
    post("/api/action", {text: `enter ${category} ${points}`});
  });
  document.getElementById("setup-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const players = document.getElementById("setup-players").value.split(",").map((p) => p.trim()).filter(Boolean);
    post("/api/game", {players, options: {pasa: document.getElementById("setup-rule").value},
      mode: document.getElementById("setup-mode").value});
  });
  if (panelMode === "mock") {
    document.querySelectorAll("#virtual-panel button").forEach((b) => b.addEventListener("click", () =>
      post("/api/panel/press", {button: b.dataset.button, long: b.dataset.long === "true"})));
  }
  const frame = document.getElementById("frame");
  frame.hidden = true;
  frame.addEventListener("error", () => { frame.hidden = true; });
  frame.addEventListener("load", () => { frame.hidden = false; });
  setInterval(refreshFrame, 1000);
});
