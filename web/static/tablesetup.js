// The set-up of a board-game table: the mats to print (/mats/GAME.json, /mats/GAME/N.svg|pdf) and what the
// camera sees of them now (/api/calibration, /api/calibration.jpg). Games with mats are the catalog's games
// whose mats the device can make (it answers their sheet list); nothing here is hard-coded per game, except
// Dice Treasure's deck enrolment (/api/deck): its cards are the one piece the owners teach card by card.

import {el, post, showError} from "./app.js";

let offered = [];

async function json(url) {
  const response = await fetch(url, {credentials: "same-origin", cache: "no-store"});
  const data = await response.json().catch(() => ({error: `the device answered ${response.status}`}));
  return response.ok ? data : {error: data.error || `the device answered ${response.status}`};
}

function players() {
  const n = Number(document.getElementById("mats-players").value);
  return Number.isInteger(n) && n >= 1 && n <= 4 ? n : null;
}

async function drawSheets() {
  const game = document.getElementById("mats-game").value;
  const list = document.getElementById("mats-sheets");
  const preview = document.getElementById("mats-preview");
  const n = players();
  list.replaceChildren();
  if (!game) return;
  if (n === null) { showError("table-setup", "players must be 1 to 4"); return; }
  const data = await json(`/mats/${encodeURIComponent(game)}.json?players=${n}`);
  if (data.error) { showError("table-setup", data.error); return; }
  for (const sheet of data.sheets) {
    const item = el("li", {"data-sheet": sheet.sheet});
    item.appendChild(el("span", {}, `${sheet.sheet}. ${sheet.title} (${sheet.paper.toUpperCase()}) `));
    const base = `/mats/${encodeURIComponent(game)}/${sheet.sheet}`;
    item.appendChild(el("a", {href: `${base}.svg?players=${n}&download=1`, class: "svg"}, "SVG"));
    item.appendChild(document.createTextNode(" · "));
    item.appendChild(el("a", {href: `${base}.pdf?players=${n}`, class: "pdf"}, "PDF"));
    list.appendChild(item);
  }
  preview.src = `/mats/${encodeURIComponent(game)}/1.svg?players=${n}`;
  preview.hidden = false;
  await drawTaught(game);
  document.getElementById("deck-enrol").hidden = game !== "dicetreasure";
  if (game === "dicetreasure") await drawDeck();
}

// --- Dice Treasure: the owners' own deck, card by card ------------------------------------------------------
let deck = null;  // the device's last report of the deck (its colours and backgrounds fill the card form)

function showDeck(report) {
  deck = report;
  const status = document.getElementById("deck-status");
  status.textContent = report.motif_cards
    ? `${report.motif_cards} of ${report.of} motif cards enrolled` + (report.partial ? " (a partial deck)" : "") +
      (report.bonus_cards ? `, ${report.bonus_cards} leprechaun cards` : "")
    : "No card enrolled yet: the games here use the stand-in deck.";
  const warnings = document.getElementById("deck-warnings");
  warnings.replaceChildren(...(report.warnings || []).map((w) => el("li", {}, w)));
  for (const [id, cards] of [["deck-cards", report.cards], ["deck-bonus-cards", report.bonus]]) {
    const list = document.getElementById(id);
    list.replaceChildren();
    for (const card of cards || []) {
      const item = el("li", {"data-card": card.id}, `${card.words} `);
      const remove = el("button", {type: "button", class: "remove", title: `take ${card.id} out of the deck`}, "Remove");
      remove.addEventListener("click", () => removeCard(card.id));
      item.appendChild(remove);
      list.appendChild(item);
    }
  }
  // A leprechaun card needs three or four colours: the fourth may stay unused.
  document.querySelectorAll("#deck-bonus select.requires").forEach((select, i) => {
    if (!select.options.length) options(select, [...(i === 3 ? ["none"] : []), ...report.backgrounds, "any"], i === 3 ? "none" : "any");
  });
}

async function addBonus(event) {
  event.preventDefault();
  const requires = [...document.querySelectorAll("#deck-bonus select.requires")].map((s) => s.value).filter((v) => v !== "none");
  const reward = Number(document.getElementById("deck-bonus-reward").value);
  const report = await post("/api/deck/bonus", {requires, reward}, "table-setup");
  if (!report.error) showDeck(report);
}

async function drawDeck() {
  const report = await json("/api/deck");
  if (report.error) { showError("table-setup", report.error); return; }
  showDeck(report);
}

function options(select, values, chosen) {
  select.replaceChildren(...values.map((v) => el("option", {value: String(v), selected: String(v) === String(chosen)}, String(v))));
}

// The card as read, in a form the owner checks: background, coins, and each space's colour and value.
function showCard(read) {
  const form = document.getElementById("deck-card");
  form.hidden = false;
  document.getElementById("deck-card-words").textContent =
    (read.sure ? "Read: " : "Read, with doubts (check them): ") + read.words;
  document.getElementById("deck-doubts").replaceChildren(...read.doubts.map((d) => el("li", {class: "doubt"}, d)));
  options(document.getElementById("deck-background"), deck.backgrounds, read.entry.background);
  document.getElementById("deck-coins").value = String(read.entry.coins);
  const table = document.getElementById("deck-spaces");
  table.replaceChildren();
  const head = el("tr");
  for (const h of ["Space", "At (column, row)", "Dice colour", "Value"]) head.appendChild(el("th", {}, h));
  table.appendChild(head);
  read.entry.spaces.forEach((space, i) => {
    const row = el("tr", {"data-space": i + 1, "data-at": JSON.stringify(space.at)});
    row.appendChild(el("td", {class: "num"}, i + 1));
    row.appendChild(el("td", {}, space.at.join(", ")));
    const colour = el("select", {class: "colour", "aria-label": `space ${i + 1} dice colour`});
    options(colour, ["any", ...deck.dice_colours], space.colour);
    const value = el("select", {class: "value", "aria-label": `space ${i + 1} value`});
    options(value, ["any", 1, 2, 3, 4, 5, 6], space.value);
    for (const control of [colour, value]) { const cell = el("td"); cell.appendChild(control); row.appendChild(cell); }
    table.appendChild(row);
  });
}

function cardFromForm() {
  const spaces = [...document.querySelectorAll("#deck-spaces tr[data-space]")].map((row) => {
    const value = row.querySelector("select.value").value;
    return {at: JSON.parse(row.dataset.at), colour: row.querySelector("select.colour").value,
            value: value === "any" ? "any" : Number(value)};
  });
  return {background: document.getElementById("deck-background").value,
          coins: Number(document.getElementById("deck-coins").value), spaces};
}

async function readCard() {
  const read = await post("/api/deck/read", {}, "table-setup");
  if (read.error) return;
  showCard(read);
}

async function addCard(event) {
  event.preventDefault();
  const report = await post("/api/deck/cards", {card: cardFromForm()}, "table-setup");
  if (report.error) return;  // the validator's words are shown; the form stays for a fix
  document.getElementById("deck-card").hidden = true;
  showDeck(report);
}

async function removeCard(id) {
  const report = await post("/api/deck/remove", {id}, "table-setup");
  if (!report.error) showDeck(report);
}

// The colours taught at this table: the readers use them instead of the nominal ones.
function showTaught(report) {
  const line = document.getElementById("colours-taught");
  const parts = [];
  for (const [piece, state] of Object.entries(report.pieces || {})) {
    parts.push(`${piece} colours taught: ${state.taught.join(", ") || "none"}` +
      (state.missing.length ? `; still to teach: ${state.missing.join(", ")}` : ""));
  }
  line.textContent = parts.join(". ");
  // Dice are taught from one die of each colour; Pyramido's blocks from dominoes on player 1's pyramid mat.
  const pieces = report.pieces || {};
  const button = document.getElementById("teach-dice");
  button.hidden = !("die" in pieces || "block" in pieces);
  button.textContent = "block" in pieces ? "Teach the block colours" : "Teach the dice colours";
  button.title = "block" in pieces
    ? "lay dominoes showing each of the five colours on player 1's pyramid mat first"
    : "lay one die of each colour in the camera's view first";
}

async function drawTaught(game) {
  const report = await json(`/api/teach?game=${encodeURIComponent(game)}`);
  if (report.error) { showError("table-setup", report.error); return; }
  showTaught(report);
}

async function teachDice() {
  const game = document.getElementById("mats-game").value;
  const report = await post("/api/teach", {game, players: players()}, "table-setup");
  if (report.error) return;
  showTaught(report);
  const seen = (report.measured || []).map((d) => d.colour).join(", ");
  document.getElementById("colours-taught").textContent += ` (just measured: ${seen})`;
}

async function checkCamera() {
  const game = document.getElementById("mats-game").value;
  const n = players();
  if (!game || n === null) { showError("table-setup", "choose a game and 1 to 4 players first"); return; }
  const report = await json(`/api/calibration?game=${encodeURIComponent(game)}&players=${n}`);
  if (report.error) { showError("table-setup", report.error); return; }
  const box = document.getElementById("camera-report");
  box.hidden = false;
  const advice = document.getElementById("camera-advice");
  advice.replaceChildren();
  // The advice says what to do; a problem it already says (as its start) is not said twice.
  const tips = report.advice || [];
  const said = [...(report.problems || []).filter((p) => !tips.some((a) => a.startsWith(p))), ...tips];
  if (report.ready) said.unshift("Every mat is found: the table is ready.");
  for (const line of said) advice.appendChild(el("li", {}, line));
  const table = document.getElementById("camera-sheets");
  table.replaceChildren();
  if (report.sheets && report.sheets.length) {
    const head = el("tr");
    for (const h of ["Sheet", "Markers seen", "Error (mm)", "px/mm"]) head.appendChild(el("th", {}, h));
    table.appendChild(head);
    for (const s of report.sheets) {
      const row = el("tr", {"data-sheet": s.sheet, class: s.located ? "located" : "missing"});
      row.appendChild(el("td", {}, s.title || s.sheet));
      row.appendChild(el("td", {class: "num"}, `${(s.markers_seen || []).length} of ${s.markers_total}`));
      row.appendChild(el("td", {class: "num"}, s.located ? s.error_mm : "–"));
      row.appendChild(el("td", {class: "num"}, s.located ? s.px_per_mm : "–"));
      table.appendChild(row);
    }
  }
  const img = document.getElementById("camera-view");
  img.onerror = () => { img.hidden = true; };
  img.onload = () => { img.hidden = false; };
  img.src = `/api/calibration.jpg?game=${encodeURIComponent(game)}&players=${n}&v=${Date.now()}`;
}

async function start() {
  const data = await json("/api/catalog");
  if (data.error) return;
  const select = document.getElementById("mats-game");
  offered = [];
  for (const game of data.games) {
    const sheets = await json(`/mats/${encodeURIComponent(game.name)}.json`);
    if (!sheets.error) offered.push(game);
  }
  for (const game of offered) select.appendChild(el("option", {value: game.name}, game.title));
  document.getElementById("table-setup").hidden = offered.length === 0;
  const state = await json("/api/state");
  const running = state.game && offered.some((g) => g.name === state.game.name) ? state.game : null;
  if (running) {
    select.value = running.name;
    document.getElementById("mats-players").value = String(running.players.length);
  }
  select.addEventListener("change", drawSheets);
  document.getElementById("mats-players").addEventListener("change", drawSheets);
  document.getElementById("camera-check").addEventListener("click", checkCamera);
  document.getElementById("teach-dice").addEventListener("click", teachDice);
  document.getElementById("deck-read").addEventListener("click", readCard);
  document.getElementById("deck-card").addEventListener("submit", addCard);
  document.getElementById("deck-bonus").addEventListener("submit", addBonus);
  document.getElementById("deck-discard").addEventListener("click", () => { document.getElementById("deck-card").hidden = true; });
  document.getElementById("mats-form").addEventListener("submit", (e) => { e.preventDefault(); drawSheets(); });
  await drawSheets();
  document.body.dataset.tableSetup = "ready";
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
