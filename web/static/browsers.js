// The paired browsers, for a paired browser: listed (GET /api/browsers) with "forget" per browser and "forget
// all" (POST /api/browsers/forget, /api/browsers/forget-all). Forgetting this browser unpairs it: the page reloads.

import {el, post} from "./app.js";

async function draw() {
  const card = document.getElementById("browsers-card");
  const response = await fetch("/api/browsers", {credentials: "same-origin", cache: "no-store"});
  if (!response.ok) { card.hidden = true; return; } // not paired: nothing to show
  const data = await response.json();
  const list = document.getElementById("browsers");
  list.replaceChildren();
  for (const b of data.browsers) {
    const when = new Date(b.paired_at * 1000).toLocaleString();
    const item = el("li", {"data-browser": b.id});
    item.appendChild(el("span", {}, `${b.label || "a browser"}, paired ${when}${b.this ? " (this browser)" : ""} `));
    const forget = el("button", {type: "button", class: "forget"}, b.this ? "Forget this browser" : "Forget");
    forget.addEventListener("click", async () => {
      const answer = await post("/api/browsers/forget", b.this ? {} : {id: b.id}, "browsers");
      if (answer.error) return;
      if (b.this) window.location.reload(); else draw();
    });
    item.appendChild(forget);
    list.appendChild(item);
  }
  card.hidden = false;
}

async function start() {
  document.getElementById("forget-all").addEventListener("click", async () => {
    const answer = await post("/api/browsers/forget-all", {}, "browsers");
    if (!answer.error) window.location.reload();
  });
  await draw();
  // Pairing happens on this page without a reload: look again when the badge says so.
  const badge = document.getElementById("pairing");
  new MutationObserver(() => draw()).observe(badge, {attributes: true, attributeFilter: ["data-paired"]});
  document.body.dataset.browsers = "ready";
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
