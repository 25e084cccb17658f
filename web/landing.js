// The landing page: the live player count and, where the server runs more than one, its worlds with a
// link to play in each, asked every 10 s of GET /health (the one public endpoint: a visitor has not
// signed in).
import { api, el, formatNumber } from "./common.js";

const POLL_MS = 10_000;
const count = document.getElementById("players-online");
const label = document.getElementById("players-label");
const worldList = document.getElementById("worlds");

async function refresh() {
  try {
    const { playersOnline, worlds } = await api("/health");
    if (worlds === undefined) throw new Error("not counted just now");
    count.textContent = String(playersOnline);
    label.textContent = playersOnline === 1 ? "player online" : "players online";
    count.dataset.count = String(playersOnline);
    showWorlds(worlds);
  } catch (error) {
    count.textContent = "?";
    label.textContent = `players online (${error.message})`;
  }
  setTimeout(refresh, POLL_MS);
}

function showWorlds(worlds) {
  worldList.hidden = worlds.length < 2;
  worldList.replaceChildren(
    ...worlds.map((world) =>
      el(
        "li",
        { "data-world": world.id },
        el("span.world-name", { text: `World ${world.id}` }),
        el("span.world-load", {
          text: `${formatNumber(world.playersOnline)} / ${formatNumber(world.capacity)} players`,
        }),
        world.full
          ? el("span.world-full", { text: "full" })
          : el("a", { href: `/play?world=${world.id}`, text: "Play here" }),
      ),
    ),
  );
}

refresh();
