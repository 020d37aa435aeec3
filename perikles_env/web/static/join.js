// The invitation page: claims the seat of a join code (once) and goes to its own link.
"use strict";

{
  const code = decodeURIComponent(location.pathname.split("/").pop());
  document.getElementById("code").textContent = code;
  document.getElementById("take").onclick = async () => {
    const reply = await fetch("/api/join", {
      method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({code: code}),
    });
    const data = await reply.json();
    if (!reply.ok) {
      const err = document.getElementById("error");
      err.textContent = data.error;
      err.hidden = false;
      return;
    }
    remember(data.id, data.seat, data.link);
    location.replace(data.link);
  };
}

// The seats this browser holds, for the lobby's "your games" (kept in this browser only).
function remember(game, seat, link) {
  const mine = JSON.parse(localStorage.getItem("perikles-seats") || "[]");
  if (!mine.some((m) => m.link === link)) mine.push({game: game, seat: seat, link: link});
  localStorage.setItem("perikles-seats", JSON.stringify(mine));
}
