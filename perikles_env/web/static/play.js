// One seat's page (/seat/<token>), or a spectator's (/watch/<game>): shows the payload the
// server pushes and sends this seat's moves. Everything comes from the server; the page
// computes no rule.
"use strict";

const parts = location.pathname.split("/");
const watching = parts[1] === "watch";
const key = parts.pop();
const api = watching ? "/api/games/" + key : "/api/seat/" + key;
const wsPath = watching ? "/ws/watch/" + key : "/ws/" + key;
let state = null;     // the latest payload
let prefix = [];      // steps chosen so far in the words menu
let target = null;    // the board place clicked, whose moves the chooser lists
let sending = false;
let online = false;
let wholeLog = false; // the whole story is shown, not just its newest lines

const $ = (id) => document.getElementById(id);

function el(tag, text, attrs) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

function percent(p) { return Math.round(p * 100) + " %"; }

function words(move) { return move.words; }

async function post(path, body) {
  let reply;
  try {
    reply = await fetch(api + path, {
      method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body),
    });
  } catch (err) {  // no answer at all: said on the page, not left to the console
    showError("could not reach the server: " + err);
    return null;
  }
  if (!reply.ok) showError((await reply.json()).error || reply.statusText);
  return reply;
}

// ---- sending a move ---------------------------------------------------------------------

function choose(move) {
  if (!online) return;
  if (move.confirm) {
    $("confirm-text").textContent = words(move) + "?";
    $("confirm").hidden = false;
    $("confirm").dataset.action = move.action;
    return;
  }
  send(move.action);
}

async function send(action) {
  if (sending || !state || !online) return;
  sending = true;
  $("confirm").hidden = true;
  showError("");
  try {
    await post("/act", {action: action, step: state.step});
  } finally {
    sending = false;
  }
}

function showError(text) {
  $("error").textContent = text;
  $("error").hidden = !text;
}

// ---- drawing the payload ----------------------------------------------------------------

function beep() {
  if (!$("sound").checked) return;
  try {
    const ctx = new AudioContext();
    const osc = ctx.createOscillator();
    osc.frequency.value = 660;
    osc.connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.15);
  } catch (err) { /* no sound here */ }
}

function render(p) {
  const fresh = !state || state.step !== p.step;
  const myTurn = !watching && p.to_act === p.seat;
  if (myTurn && (!state || state.to_act !== p.seat || fresh)) beep();
  state = p;
  if (fresh) { prefix = []; target = null; $("confirm").hidden = true; $("hints").hidden = true; }
  document.title = (myTurn ? "▶ Your move · " : "") + "Perikles · " +
    (watching ? "watching" : "p" + p.seat);
  document.body.dataset.step = p.step;  // which state the page shows (tests wait on it)
  document.body.classList.toggle("my-turn", myTurn);
  $("status").textContent = p.status + (p.error ? " · " + p.error : "");
  $("board").innerHTML = p.board;
  markTarget();
  renderTurn(p);
  renderHand(p.hand);
  renderBattle(p.battle);
  renderForecast(p.forecast);
  renderEnd(p);
  if (wholeLog) loadWholeLog(); else renderFeed(p.feed, p.step);
  renderLast(p);
  $("pace").value = String(p.pace);
  $("pause").textContent = p.paused ? "resume" : "pause";
}

function markTarget() {
  for (const r of document.querySelectorAll("#board .hot")) {
    r.classList.toggle("chosen", r.dataset.target === target);
  }
}

function renderTurn(p) {
  const mine = p.moves.length > 0;
  $("turn").classList.toggle("active", mine);
  $("prompt").textContent = p.finished ? "Game over" : p.abandoned ? "Game abandoned"
    : mine ? "Your move: " + p.phase
    : "Waiting for p" + p.to_act + " (" + p.names[p.to_act] + "): " + p.phase;
  $("only").textContent = p.only;
  $("only").hidden = !p.only;
  $("rules").hidden = !p.rules;  // the rules section of this decision (docs/rules.md)
  if (p.rules) {
    $("rules-link").textContent = p.rules.title;
    $("rules-link").href = p.rules.link;
  }
  $("undo").hidden = !p.undo;
  $("hint").hidden = $("hint-agent").hidden = !mine;
  const chooser = $("chooser");
  chooser.replaceChildren();
  const picked = target ? p.moves.filter((m) => m.targets.includes(target)) : [];
  chooser.hidden = picked.length === 0;
  if (picked.length) {
    chooser.append(el("h3", "Here you can:"));
    for (const m of picked) chooser.append(moveButton(m, words(m)));
    const cancel = el("button", "cancel", {"class": "small"});
    cancel.onclick = () => { target = null; markTarget(); renderTurn(state); };
    chooser.append(cancel);
  }
  renderMenu(p.moves);
}

function moveButton(move, label) {
  const b = el("button", label, {"data-action": move.action, "class": "move"});
  b.onclick = () => choose(move);
  return b;
}

// The legal moves in words, one step at a time (the same tree as the terminal game).
function renderMenu(moves) {
  const menu = $("menu");
  menu.replaceChildren();
  if (!moves.length) return;
  const depth = prefix.length;
  const here = moves.filter((m) => prefix.every((s, i) => m.path[i] === s));
  if (depth) {
    const back = el("button", "‹ back", {"class": "small", id: "menu-back"});
    back.onclick = () => { prefix.pop(); renderMenu(state.moves); };
    menu.append(el("h3", prefix.join(" › ")), back);
  } else {
    menu.append(el("h3", moves.some((m) => m.targets.length)
      ? "Click a highlighted place on the board, or choose:" : "Choose:"));
  }
  const seen = new Set();
  const list = el("div", undefined, {"class": "options"});
  for (const m of here) {
    const label = m.path[depth];
    if (seen.has(label)) continue;
    seen.add(label);
    if (m.path.length === depth + 1) {
      list.append(moveButton(m, label));
    } else {
      const b = el("button", label + " …", {"data-step": label, "class": "step"});
      b.onclick = () => { prefix.push(label); renderMenu(state.moves); };
      list.append(b);
    }
  }
  menu.append(list);
}

function renderHand(hand) {
  const box = $("hand");
  box.hidden = !hand.length;
  if (!hand.length) return;
  box.replaceChildren(el("h2", "Your hand"));
  for (const h of hand) {
    const row = el("p", undefined, {"class": "hand-row"});
    row.append(el("span", h.city, {"class": "hand-city"}));
    if (!h.counters.length) row.append(el("span", "empty", {"class": "muted"}));
    for (const c of h.counters) {
      row.append(el("span", c.type + c.strength + (c.count > 1 ? " ×" + c.count : ""),
                    {"class": "counter " + c.type, title: c.words + ", " + c.count + " held"}));
    }
    box.append(row);
  }
}

function renderBattle(b) {
  const box = $("battle");
  box.hidden = !b;
  if (!b) return;
  box.replaceChildren(el("h2", "Battle at " + b.where + ": " + b.unit + " round"));
  box.append(el("p", "Attack " + b.attack + " against defence " + b.defence + " (column " +
                b.column + "): the attacker hits on " + b.need_attack + "+, the defender on " +
                b.need_defence + "+ with two dice; 2 tokens win the round."));
  box.append(el("p", "Tokens now: attacker " + b.tokens[0] + ", defender " + b.tokens[1]));
  box.append(el("p", "The attacker wins this round " + percent(b.p_round) +
                " and takes the location " + percent(b.p_location), {"class": "odds", id: "odds"}));
  if (b.options.length) {
    const table = el("table", undefined, {id: "battle-options"});
    const head = el("tr");
    head.append(el("th", "your choice"), el("th", "round"), el("th", "location"));
    table.append(head);
    for (const o of b.options) {
      const tr = el("tr");
      tr.append(el("td", o.words), el("td", percent(o.p_round)), el("td", percent(o.p_location)));
      table.append(tr);
    }
    box.append(el("h3", "The attacker's chances after each of your choices:"), table);
  }
}

function renderForecast(f) {
  const box = $("forecast");
  box.hidden = !f.length;
  if (!f.length) return;
  box.replaceChildren(el("h2", "Attacks so far"));
  const ul = el("ul");
  for (const x of f) ul.append(el("li", x.location + ": attack wins about " +
                                  percent(x.attack_wins)));
  box.append(ul, el("p", "estimated from what you know", {"class": "muted"}));
}

function renderEnd(p) {
  const box = $("end");
  box.hidden = !(p.finished || p.abandoned);
  $("table-tools").hidden = watching || p.finished || !!p.abandoned;
  if (box.hidden) return;
  box.replaceChildren(el("h2", p.finished ? "The score" : "The game was abandoned"));
  if (p.breakdown.length) {
    const table = el("table", undefined, {id: "breakdown"});
    const head = el("tr");
    for (const h of ["", "cubes", "locations", "statues", "total"]) head.append(el("th", h));
    table.append(head);
    for (const b of p.breakdown) {
      const tr = el("tr", undefined, {"class": p.winners.includes(b.seat) ? "winner" : ""});
      tr.append(el("td", "p" + b.seat + (b.seat === p.seat ? " (you)" : "") +
                   (p.winners.includes(b.seat) ? " ★" : "")));
      tr.append(el("td", String(b.cubes)));
      tr.append(el("td", b.location_vp + (b.locations.length ? " (" +
        b.locations.map((l) => l.location + " " + l.vp).join(", ") + ")" : ""),
        {"class": "detail"}));
      tr.append(el("td", b.statue_vp + (b.statues.length ? " (" + b.statues.map((s) =>
        s.count + "× " + s.city + " at " + s.value + (s.defeats ? ", " + s.defeats +
        " defeats" : "")).join(", ") + ")" : ""), {"class": "detail"}));
      tr.append(el("td", String(b.total), {"class": "total"}));
      table.append(tr);
    }
    box.append(table);
  }
  if (p.record) {
    const links = el("p");
    links.append(el("a", "replay the game", {href: "/replay/" + p.game, id: "replay-link",
                                              target: "_blank"}),
                 " · ", el("a", "the record (JSON lines)", {href: p.record.link}),
                 " · ", el("a", "lobby and your games", {href: "/"}));
    box.append(links, el("p", "Kept on the server as " + p.record.path + "; to make the " +
                         "replay viewer yourself:", {"class": "muted"}),
               el("code", p.record.command, {id: "replay-command"}));
  }
}

function renderFeed(feed, step) {
  const ol = $("feed");
  ol.replaceChildren();
  for (const line of feed) {
    const li = el("li", line.text, {"data-step": line.step});
    if (line.step === step) li.classList.add("new");
    if (!watching && line.actor === state.seat) li.classList.add("mine");
    ol.append(li);
  }
  ol.scrollTop = ol.scrollHeight;
}

// Each player's latest move, from the story this page may read.
function renderLast(p) {
  const box = $("last");
  const last = new Map();
  for (const line of p.feed) if (line.actor >= 0) last.set(line.actor, line.text);
  box.hidden = last.size === 0 || p.finished;
  if (box.hidden) return;
  box.replaceChildren(el("h2", "Last moves"));
  const ul = el("ul");
  for (let q = 0; q < p.players; q++) {
    if (!last.has(q)) continue;
    const li = el("li", last.get(q), {"data-player": q});
    if (q === p.to_act) li.classList.add("to-act");
    ul.append(li);
  }
  box.append(ul);
}

async function loadWholeLog() {
  let reply;
  try {
    reply = await fetch(api + "/log");
  } catch {  // the server went away: the connection line says so, the next state fetches again
    return;
  }
  if (reply.ok) renderFeed((await reply.json()).feed, state ? state.step : -1);
}

async function showHints() {
  const box = $("hints");
  const agent = $("hint-agent").value;
  const step = state.step;
  box.hidden = false;
  box.replaceChildren(el("h2", "Thinking…"));
  let reply;
  try {
    reply = await fetch(api + "/hints?agent=" + encodeURIComponent(agent));
  } catch (err) {
    box.replaceChildren(el("h2", "No hints"), el("p", "could not reach the server: " + err));
    return;
  }
  const data = await reply.json();
  if (!state || state.step !== step) return;
  if (!reply.ok) { box.replaceChildren(el("h2", "No hints"), el("p", data.error)); return; }
  box.replaceChildren(el("h2", "Hints from the " + agent));
  const ol = el("ol", undefined, {id: "hint-list"});
  for (const h of data.hints) {
    const li = el("li", undefined, {"data-action": h.action});
    li.append(el("b", h.words), " · chosen in " + h.votes + " of " + h.samples +
              " redrawn games · win chance about " + percent(h.win));
    ol.append(li);
  }
  box.append(ol, el("p", "From what you may know: the hidden tiles and counters are " +
                    "redrawn " + (data.hints[0] ? data.hints[0].samples : 0) + " times; " +
                    "after each move the game is played out by heuristic players.",
                    {"class": "muted"}));
}

// ---- events -----------------------------------------------------------------------------

$("board").addEventListener("click", (e) => {
  const hot = e.target.closest("[data-target]");
  if (!hot || !state || !online) return;
  target = hot.dataset.target;
  const picked = state.moves.filter((m) => m.targets.includes(target));
  markTarget();
  renderTurn(state);
  if (picked.length === 1) choose(picked[0]);
});

$("confirm-yes").onclick = () => send(Number($("confirm").dataset.action));
$("confirm-no").onclick = () => { $("confirm").hidden = true; };
$("whole-log").onclick = () => {
  wholeLog = !wholeLog;
  $("whole-log").textContent = wholeLog ? "newest only" : "whole game";
  if (wholeLog) loadWholeLog(); else if (state) renderFeed(state.feed, state.step);
};
$("undo").onclick = () => { if (state && online) post("/undo", {step: state.step}); };
$("hint").onclick = () => { if (state) showHints(); };
$("pace").onchange = () => post("/pace", {pace: Number($("pace").value)});
$("pause").onclick = () => post("/pace", {paused: !(state && state.paused)});
$("abandon").onclick = () => {
  if (confirm("Give this game up for everyone at the table? Nobody can move in it any more."))
    post("/abandon", {});
};
$("sound").checked = localStorage.getItem("perikles-sound") === "1";
$("sound").onchange = () => localStorage.setItem("perikles-sound", $("sound").checked ? "1" : "0");
if (watching) {
  document.body.classList.add("watching");
  for (const id of ["turn", "table-tools"]) $(id).hidden = true;
}

function connect() {
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") +
                           location.host + wsPath);
  ws.onopen = () => {
    online = true;
    document.body.classList.remove("offline");
    $("conn").textContent = "";
  };
  ws.onmessage = (e) => {
    try {
      render(JSON.parse(e.data));
    } catch (err) {  // said on the page, not only in the console: the board is not current
      showError("this page could not show the game's latest state (" + err + "): reload");
      throw err;
    }
  };
  ws.onclose = () => {
    online = false;  // no move can be sent: the page waits for the server
    document.body.classList.add("offline");
    $("conn").textContent = "the server does not answer: reconnecting…";
    setTimeout(connect, 1000);
  };
}

connect();
