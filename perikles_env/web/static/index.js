// The lobby and new-game page: the games on the server (no secrets), an invitation code to
// join, the seats this browser holds, and the form that creates a game.
"use strict";

const $ = (id) => document.getElementById(id);
let defaults = {};
let agents = [];
let counts = {};  // agent spec -> the player counts it can play (/api/options "players")

function el(tag, text, attrs) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

function mySeats() { return JSON.parse(localStorage.getItem("perikles-seats") || "[]"); }

function remember(game, seat, link) {
  const mine = mySeats();
  if (!mine.some((m) => m.link === link)) mine.push({game: game, seat: seat, link: link});
  localStorage.setItem("perikles-seats", JSON.stringify(mine));
}

function seatInputs() {
  const n = Number($("players").value);
  const box = $("seats");
  const old = [...box.querySelectorAll("input")].map((i) => i.value);
  box.replaceChildren();
  const seats = defaults.seats || [];
  for (let p = 0; p < n; p++) {
    const row = el("p");
    const label = el("label", "p" + p, {"for": "seat" + p});
    const input = el("input", undefined, {id: "seat" + p, "class": "spec", list: "agents"});
    input.value = old[p] || seats[p] || (p === 0 ? "human" : $("strength").value);
    input.addEventListener("input", markAgents);
    const note = el("span", "", {"class": "unsupported error"});
    note.hidden = true;
    row.append(label, input, " ", note);
    box.append(row);
  }
  markAgents();
}

// Whether an agent spec can play an n-player game: its own counts, else its name's.
function canPlay(spec, n) {
  const known = counts[spec] || counts[spec.split(":")[0]];
  return !known || !known.length || known.includes(n);
}

function playsOnly(spec) {
  const known = counts[spec] || counts[spec.split(":")[0]] || [];
  return "plays only " + known.join(" or ") + "-player games";
}

// Mark the agents that cannot play the chosen player count: disabled in the strength menu,
// labelled in the seat suggestions, and a note beside any seat that names one.
function markAgents() {
  const n = Number($("players").value);
  for (const option of $("strength").options) {
    option.disabled = !canPlay(option.value, n);
    option.title = option.disabled ? playsOnly(option.value) : "";
  }
  if ($("strength").selectedOptions[0].disabled) $("strength").value = "heuristic";
  for (const option of $("agents").options) {
    option.label = canPlay(option.value, n) ? "" : "cannot play " + n + " players: "
      + playsOnly(option.value);
    option.dataset.unsupported = canPlay(option.value, n) ? "" : "yes";
  }
  for (const input of $("seats").querySelectorAll("input")) {
    const note = input.parentElement.querySelector(".unsupported");
    const spec = input.value.trim();
    const bad = spec !== "human" && spec !== "" && !canPlay(spec, n);
    note.textContent = bad ? "cannot play " + n + " players: " + playsOnly(spec) : "";
    note.hidden = !bad;
    input.classList.toggle("refused", bad);
  }
}

function setStrength() {
  for (const input of $("seats").querySelectorAll("input")) {
    if (input.value !== "human") input.value = $("strength").value;
  }
  markAgents();
}

async function post(url, body) {
  const reply = await fetch(url, {
    method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
  });
  return [reply, await reply.json()];
}

async function start(e) {
  e.preventDefault();
  $("error").hidden = true;
  const seats = [...$("seats").querySelectorAll("input")].map((i) => i.value.trim());
  const body = {seats: seats, private: $("private").checked};
  const seed = $("seed").value.trim();
  if (seed) body.seed = /^[0-9]+$/.test(seed) ? Number(seed) : seed;  // the server says why not
  const [reply, data] = await post("/api/games", body);
  if (!reply.ok) {
    $("error").textContent = data.error;
    $("error").hidden = false;
    return;
  }
  remember(data.id, data.seat, data.link);
  if (!data.invites.length) {
    location.href = data.link;
    return;
  }
  const ol = $("links");
  ol.replaceChildren();
  for (const inv of data.invites) {
    const li = el("li", "p" + inv.seat + ": code ");
    const a = el("a", location.origin + inv.link, {href: inv.link, target: "_blank"});
    li.append(el("b", inv.code, {"class": "code"}), " or link ", a);
    ol.append(li);
  }
  $("my-seat").href = data.link;
  $("created").hidden = false;
  loadLobby();
}

async function join(body) {
  $("join-error").hidden = true;
  const [reply, data] = await post("/api/join", body);
  if (!reply.ok) {
    $("join-error").textContent = data.error;
    $("join-error").hidden = false;
    return;
  }
  remember(data.id, data.seat, data.link);
  location.href = data.link;
}

async function loadLobby() {
  const reply = await fetch("/api/lobby");
  if (!reply.ok) return;
  const games = (await reply.json()).games;
  const body = $("games").querySelector("tbody");
  body.replaceChildren();
  $("no-games").hidden = games.length > 0;
  const mine = mySeats();
  for (const g of games) {
    const tr = el("tr", undefined, {"data-game": g.id});
    tr.append(el("td", g.id.slice(0, 6)));
    tr.append(el("td", g.seats.map((s, p) => "p" + p + " " + s).join(", ")));
    let state = g.state + (g.state === "finished" ? ": " + g.scores.join("-")
      : " · turn " + g.turn + ", step " + g.step);
    if (g.private) state += " · private";
    if (g.chosen_seed) state += " · seed chosen by its creator";
    tr.append(el("td", state));
    const act = el("td");
    for (const p of (g.private ? [] : g.open)) {
      const b = el("button", "take seat p" + p, {"class": "small take", "data-seat": p});
      b.onclick = () => join({game: g.id, seat: p});
      act.append(b);
    }
    act.append(el("a", "watch", {href: g.watch, "class": "watch"}));
    tr.append(act);
    body.append(tr);
  }
  const list = $("my-games");
  list.replaceChildren();
  const known = new Map(games.map((g) => [g.id, g]));
  for (const m of mine) {
    const g = known.get(m.game);
    if (!g) continue;
    const li = el("li");
    li.append(el("a", "game " + m.game.slice(0, 6) + ", seat p" + m.seat, {href: m.link}),
              " · " + g.state + (g.state === "finished" ? " (" + g.scores.join("-") +
              (g.winners.includes(m.seat) ? ", you won)" : ")") : ""));
    list.append(li);
  }
  $("mine").hidden = list.children.length === 0;
}

async function init() {
  const reply = await fetch("/api/options");
  const data = await reply.json();
  defaults = data.defaults || {};
  agents = data.agents;
  counts = data.players || {};
  for (const a of agents) $("agents").append(el("option", undefined, {value: a}));
  if (defaults.seats) $("players").value = String(defaults.seats.length);
  if (defaults.seed !== undefined) $("seed").value = String(defaults.seed);
  seatInputs();
  $("start").disabled = false;  // what is typed from now on is kept: the seats are built
  loadLobby();
  setInterval(loadLobby, 5000);
}

$("players").onchange = seatInputs;
$("strength").onchange = setStrength;
$("new-game").onsubmit = start;
$("join-code").onsubmit = (e) => { e.preventDefault(); join({code: $("code").value.trim()}); };
init();
