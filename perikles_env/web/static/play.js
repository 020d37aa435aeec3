// One seat's page: shows the payload the server pushes for this seat and sends this seat's
// moves. Everything comes from the server; the page computes no rule.
"use strict";

const token = location.pathname.split("/").pop();
const api = "/api/seat/" + token;
let state = null;     // the latest payload
let prefix = [];      // steps chosen so far in the words menu
let target = null;    // the board place clicked, whose moves the chooser lists
let sending = false;

const $ = (id) => document.getElementById(id);

function el(tag, text, attrs) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

function percent(p) { return Math.round(p * 100) + " %"; }

function words(move) { return move.words; }

// ---- sending a move ---------------------------------------------------------------------

function choose(move) {
  if (move.confirm) {
    $("confirm-text").textContent = words(move) + "? This cannot be undone.";
    $("confirm").hidden = false;
    $("confirm").dataset.action = move.action;
    return;
  }
  send(move.action);
}

async function send(action) {
  if (sending || !state) return;
  sending = true;
  $("confirm").hidden = true;
  showError("");
  try {
    const reply = await fetch(api + "/act", {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify({action: action, step: state.step}),
    });
    if (!reply.ok) showError((await reply.json()).error || reply.statusText);
  } catch (err) {
    showError("could not reach the server: " + err);
  } finally {
    sending = false;
  }
}

function showError(text) {
  $("error").textContent = text;
  $("error").hidden = !text;
}

// ---- drawing the payload ----------------------------------------------------------------

function render(p) {
  const fresh = !state || state.step !== p.step;
  state = p;
  if (fresh) { prefix = []; target = null; $("confirm").hidden = true; }
  document.title = (p.to_act === p.seat ? "▶ " : "") + "Perikles · p" + p.seat;
  document.body.dataset.step = p.step;  // which state the page shows (tests wait on it)
  $("status").textContent = p.status + (p.error ? " · " + p.error : "");
  $("board").innerHTML = p.board;
  markTarget();
  renderTurn(p);
  renderBattle(p.battle);
  renderForecast(p.forecast);
  renderFeed(p.feed, p.step);
}

function markTarget() {
  for (const r of document.querySelectorAll("#board .hot")) {
    r.classList.toggle("chosen", r.dataset.target === target);
  }
}

function renderTurn(p) {
  const mine = p.moves.length > 0;
  $("turn").classList.toggle("active", mine);
  $("prompt").textContent = p.finished ? "Game over" : mine
    ? "Your move: " + p.phase : "Waiting for p" + p.to_act + " (" + p.names[p.to_act] + ")";
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
  if (p.finished) {
    $("menu").replaceChildren(el("p", p.status), el("p", "This game is kept as game " + p.game +
      " in the server's games folder: its record.jsonl opens in the replay viewer.",
      {"class": "muted"}));
  }
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

function renderFeed(feed, step) {
  const ol = $("feed");
  ol.replaceChildren();
  for (const line of feed) {
    const li = el("li", line.text, {"data-step": line.step});
    if (line.step === step) li.classList.add("new");
    if (line.actor === state.seat) li.classList.add("mine");
    ol.append(li);
  }
  ol.scrollTop = ol.scrollHeight;
}

// ---- events -----------------------------------------------------------------------------

$("board").addEventListener("click", (e) => {
  const hot = e.target.closest("[data-target]");
  if (!hot || !state) return;
  target = hot.dataset.target;
  const picked = state.moves.filter((m) => m.targets.includes(target));
  if (picked.length === 1) {
    markTarget();
    renderTurn(state);
    choose(picked[0]);
  } else {
    markTarget();
    renderTurn(state);
  }
});

$("confirm-yes").onclick = () => send(Number($("confirm").dataset.action));
$("confirm-no").onclick = () => { $("confirm").hidden = true; };

$("whole-log").onclick = async () => {
  const reply = await fetch(api + "/log");
  if (reply.ok) renderFeed((await reply.json()).feed, state ? state.step : -1);
};

function connect() {
  const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") +
                           location.host + "/ws/" + token);
  ws.onopen = () => { $("conn").textContent = ""; };
  ws.onmessage = (e) => render(JSON.parse(e.data));
  ws.onclose = () => {
    $("conn").textContent = "reconnecting…";
    setTimeout(connect, 1000);
  };
}

connect();
