// The landing page: the live player count, asked every 10 s.
import { api } from "./common.js";

const POLL_MS = 10_000;
const count = document.getElementById("players-online");
const label = document.getElementById("players-label");

async function refresh() {
  try {
    const { playersOnline } = await api("/api/v1/world/online");
    count.textContent = String(playersOnline);
    label.textContent = playersOnline === 1 ? "player online" : "players online";
    count.dataset.count = String(playersOnline);
  } catch (error) {
    count.textContent = "?";
    label.textContent = `players online (${error.message})`;
  }
  setTimeout(refresh, POLL_MS);
}
refresh();
