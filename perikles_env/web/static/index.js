// The new-game page: choose a spec per seat, create the game, show each human seat's link.
"use strict";

const $ = (id) => document.getElementById(id);
let defaults = {};

function seatInputs() {
  const n = Number($("players").value);
  const box = $("seats");
  const old = [...box.querySelectorAll("input")].map((i) => i.value);
  box.replaceChildren();
  const seats = defaults.seats || [];
  for (let p = 0; p < n; p++) {
    const row = document.createElement("p");
    const label = document.createElement("label");
    label.textContent = "p" + p;
    label.htmlFor = "seat" + p;
    const input = document.createElement("input");
    input.id = "seat" + p;
    input.className = "spec";
    input.setAttribute("list", "agents");
    input.value = old[p] || seats[p] || (p === 0 ? "human" : "heuristic");
    row.append(label, input);
    box.append(row);
  }
}

async function start(e) {
  e.preventDefault();
  $("error").hidden = true;
  const seats = [...$("seats").querySelectorAll("input")].map((i) => i.value.trim());
  const body = {seats: seats};
  const seed = $("seed").value.trim();
  if (seed) body.seed = /^[0-9]+$/.test(seed) ? Number(seed) : seed;  // the server says why not
  const reply = await fetch("/api/games", {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
  });
  const data = await reply.json();
  if (!reply.ok) {
    $("error").textContent = data.error;
    $("error").hidden = false;
    return;
  }
  if (data.links.length === 1) {
    location.href = data.links[0].link;
    return;
  }
  const ol = $("links");
  ol.replaceChildren();
  for (const l of data.links) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = l.link;
    a.target = "_blank";
    a.textContent = location.origin + l.link;
    li.append("p" + l.seat + ": ", a);
    ol.append(li);
  }
  $("created").hidden = false;
}

async function init() {
  const reply = await fetch("/api/options");
  const data = await reply.json();
  defaults = data.defaults || {};
  for (const a of data.agents) {
    const o = document.createElement("option");
    o.value = a;
    $("agents").append(o);
  }
  if (defaults.seats) $("players").value = String(defaults.seats.length);
  if (defaults.seed !== undefined) $("seed").value = String(defaults.seed);
  seatInputs();
}

$("players").onchange = seatInputs;
$("new-game").onsubmit = start;
init();
