// The prayer tab: every prayer of prayers.json as a toggle button (its level, what it boosts, its drain),
// the ones on marked, the ones above the player's prayer level greyed with why, and the points left.
import { el, titleCase } from "./common.js";

const $ = (id) => document.getElementById(id);
/** The stats a prayer may boost, as prayers.json names them (each a multiplier, 1.05 for +5 %). */
const BOOSTED_STATS = ["attack", "strength", "defence", "ranged"];

/**
 * The prayer tab of a page: `game` is its state (player:sync's `prayer` and `skills`), `prayers` the
 * manifest's list, `send` sends an event. Refusals come back as the page's other `error`s do.
 */
export function createPrayerPanel({ game, prayers, send }) {
  // Built once and updated in place: a button toggled from the keyboard keeps the focus across syncs.
  const buttons = new Map(prayers.map((prayer) => [prayer.id, prayerButton(prayer)]));
  $("prayers").replaceChildren(...buttons.values());

  function prayerButton(prayer) {
    return el(
      "button.prayer",
      {
        type: "button",
        "data-prayer": prayer.id,
        onclick: () => {
          const on = game.me?.prayer?.active.includes(prayer.id) ?? false;
          send("prayer:toggle", { prayerId: prayer.id, active: !on });
        },
      },
      el("span.prayer-name", { text: prayer.name }),
      el("span.prayer-level", { text: `Level ${prayer.level}` }),
      el("span.prayer-effect", { text: `${effectOf(prayer)} · drains ${prayer.drain} points a minute` }),
      prayer.description && el("span.prayer-description", { text: prayer.description }),
      el("span.prayer-status"),
    );
  }

  function renderPrayers() {
    const me = game.me;
    if (!me) return;
    const level = me.skills?.prayer?.level ?? 1;
    const points = me.prayer?.points ?? level;
    const active = me.prayer?.active ?? [];
    // Points come back up to the prayer level (and a level gained adds one): the level is the most.
    const most = Math.max(level, points);
    $("prayer-points").textContent = `${points} / ${most}`;
    $("prayer-points-bar").style.width = `${most > 0 ? (100 * points) / most : 0}%`;
    for (const prayer of prayers) {
      const button = buttons.get(prayer.id);
      const on = active.includes(prayer.id);
      const locked = level < prayer.level;
      button.classList.toggle("active", on);
      button.classList.toggle("locked", locked);
      button.setAttribute("aria-pressed", String(on));
      // A prayer on stays switchable off, whatever the level.
      button.disabled = locked && !on;
      button.title = locked ? "" : `Switch ${prayer.name} ${on ? "off" : "on"}`;
      button.querySelector(".prayer-status").textContent = locked
        ? `Needs prayer level ${prayer.level} (yours is ${level})`
        : on
          ? "On"
          : "";
    }
  }

  return { renderPrayers };
}

/** "+5% Defence", from the manifest's multipliers. */
function effectOf(prayer) {
  const boosts = BOOSTED_STATS.filter((stat) => prayer[stat] !== undefined).map(
    (stat) => `+${Math.round((prayer[stat] - 1) * 100)}% ${titleCase(stat)}`,
  );
  return boosts.join(", ") || "No boost";
}
