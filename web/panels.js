// The play page's side panels: the player's meters, inventory (and its item menu), equipment, skills,
// prayers (prayer-panel.js), bank and store (bank-store-panels.js), drawn from what the server last sent.
import { MAX_QUANTITY } from "./amount-boxes.js";
import { createBankStorePanels, sellPrice } from "./bank-store-panels.js";
import { el, formatNumber, titleCase } from "./common.js";
import { createPrayerPanel } from "./prayer-panel.js";
import { towardsNextLevel } from "./xp.js";

const $ = (id) => document.getElementById(id);
const SKILL_ORDER = [
  "attack",
  "strength",
  "defence",
  "ranged",
  "prayer",
  "magic",
  "constitution",
  "hitpoints",
  "woodcutting",
  "fishing",
  "mining",
  "firemaking",
  "cooking",
  "smithing",
];
/** The server's equipment slots, in the panel's order; some shown under the names players know. */
const EQUIPMENT_SLOTS = [
  "head",
  "cape",
  "neck",
  "weapon",
  "body",
  "shield",
  "legs",
  "hands",
  "feet",
  "ring",
  "ammo",
];
const SLOT_LABELS = { neck: "Amulet", hands: "Gloves", feet: "Boots" };
/** The combat styles of each kind of weapon (docs/protocol.md, player:action), with what each trains. */
const COMBAT_STYLES = {
  melee: {
    accurate: "Attack XP",
    aggressive: "Strength XP",
    defensive: "Defence XP",
    controlled: "Attack, Strength and Defence XP",
  },
  ranged: {
    accurate: "Ranged XP",
    rapid: "Ranged XP, shoots sooner",
    longrange: "Ranged and Defence XP, reaches farther",
  },
};

/**
 * The panels of one page. `game` is the page's state, `map` the world's items, `trade` its trade window;
 * `send` sends an event, `notice` and `hideNotice` show and hide a notice, `showMenu` opens a menu and
 * `chatLine` writes a line in the chat.
 */
export function createPanels({ game, map, trade, send, notice, hideNotice, showMenu, chatLine }) {
  $("combat-style").addEventListener("change", (event) => {
    const style = event.target.value;
    if (send("player:action", { action: "combat_style", style })) game.style = style;
    renderCombatStyle();
  });
  const { renderPrayers } = createPrayerPanel({ game, prayers: map.prayers, send });
  const { renderBank, renderStore, heldItems, typeAmount } = createBankStorePanels({
    game,
    map,
    send,
    showTab,
    renderInventory,
  });

  function renderPlayer() {
    const me = game.me;
    $("player-name").textContent = me.name;
    renderMeters();
    renderInventory();
    renderEquipment();
    renderSkills();
    renderPrayers();
    renderBank();
    // The store's sell list is the inventory's: it changes with it.
    renderStore();
    trade.render();
  }

  function renderMeters() {
    const me = game.me;
    if (!me) return;
    $("health-bar").style.width = `${(100 * Math.max(0, me.health)) / me.maxHealth}%`;
    $("health-text").textContent = `${me.health}/${me.maxHealth}`;
    $("energy-bar").style.width = `${me.runEnergy ?? 0}%`;
    $("energy-text").textContent = `${me.runEnergy ?? 0}%`;
    // Points come back up to the prayer level: the level is the most there are.
    const prayerLevel = me.skills?.prayer?.level ?? 1;
    const points = me.prayer?.points ?? prayerLevel;
    $("prayer-bar").style.width = `${(100 * points) / Math.max(1, prayerLevel, points)}%`;
    $("prayer-text").textContent = String(points);
  }

  function renderInventory() {
    const me = game.me;
    if (!me) return;
    const bySlot = new Map(me.inventory.map((item) => [item.slot, item]));
    const slots = [];
    for (let slot = 0; slot < 28; slot++) {
      const item = bySlot.get(slot);
      const def = item && map.items.get(item.itemId);
      slots.push(
        el(
          "button.slot",
          {
            "data-slot": slot,
            "data-item": item?.itemId,
            class: `slot${item ? " full" : ""}${game.using === slot ? " using" : ""}`,
            title: item
              ? `${def?.name ?? item.itemId}${item.quantity > 1 ? ` × ${formatNumber(item.quantity)}` : ""}`
              : "",
            // An empty slot is named for a screen reader, and no tab stop on the way to the items.
            "aria-label": item ? undefined : `Empty slot ${slot + 1}`,
            tabindex: item ? undefined : "-1",
            onclick: (event) => item && slotClicked(item, event),
          },
          item && el("span.item-name", { text: def?.name ?? item.itemId }),
          item && item.quantity > 1 && el("span.qty", { text: shortNumber(item.quantity) }),
        ),
      );
    }
    $("inventory").replaceChildren(...slots);
    $("coins").textContent = formatNumber(me.coins);
  }

  function slotClicked(item, event) {
    if (game.using !== undefined && game.using !== item.slot) {
      const slot = game.using;
      return useOn(slot, { targetSlot: item.slot });
    }
    const def = map.items.get(item.itemId);
    const name = def?.name ?? item.itemId;
    const options = [];
    if (trade.offering) {
      // What the offer already holds of the stack is added to, not offered again.
      const left = trade.leftToOffer(item);
      if (left > 0) options.push({ label: `Offer ${name}`, run: () => trade.offer(item.slot, 1) });
      if (left > 1) options.push({ label: `Offer all ${name}`, run: () => trade.offer(item.slot, left) });
    }
    // Several of an item: an amount is typed in its row of the bank's or the store's panel.
    const several = heldItems().some((held) => held.itemId === item.itemId && held.quantity > 1);
    if (game.bankOpen) {
      options.push({
        label: `Deposit ${name}`,
        run: () => send("bank:deposit", { inventorySlot: item.slot, itemId: item.itemId, quantity: 1 }),
      });
      if (several)
        options.push({
          label: `Deposit an amount of ${name}…`,
          run: () => typeAmount("bank", `deposit:${item.itemId}`),
        });
      options.push({
        label: `Deposit all ${name}`,
        run: () =>
          send("bank:deposit", { inventorySlot: item.slot, itemId: item.itemId, quantity: MAX_QUANTITY }),
      });
    }
    if (game.store) {
      options.push({
        label: `Sell ${name}`,
        run: () =>
          send("store:sell", {
            targetId: game.store.targetId,
            inventorySlot: item.slot,
            itemId: item.itemId,
            quantity: 1,
          }),
      });
      if (several && sellPrice(def) > 0)
        options.push({
          label: `Sell an amount of ${name}…`,
          run: () => typeAmount("store", `sell:${item.itemId}`),
        });
    }
    if (def?.heals)
      options.push({
        label: `Eat ${name}`,
        run: () => send("inventory:use", { inventorySlot: item.slot, itemId: item.itemId }),
      });
    else if (def?.equipSlot)
      options.push({
        label: `Equip ${name}`,
        run: () => send("inventory:use", { inventorySlot: item.slot, itemId: item.itemId }),
      });
    else if (item.itemId.includes("bones"))
      options.push({
        label: `Bury ${name}`,
        run: () => send("inventory:use", { inventorySlot: item.slot, itemId: item.itemId }),
      });
    if (item.itemId.endsWith("logs"))
      options.push({
        label: `Light ${name}`,
        run: () =>
          send("player:action", { action: "light_fire", inventorySlot: item.slot, itemId: item.itemId }),
      });
    if (item.itemId.startsWith("raw_"))
      options.push({
        label: `Cook ${name}`,
        run: () => send("player:action", { action: "cook", inventorySlot: item.slot, itemId: item.itemId }),
      });
    options.push({ label: `Use ${name}`, run: () => startUsing(item.slot) });
    options.push({
      label: `Drop ${name}`,
      run: () => send("player:action", { action: "drop", inventorySlot: item.slot, itemId: item.itemId }),
    });
    const rect = event.currentTarget.getBoundingClientRect();
    showMenu($("slot-menu"), options);
    const menu = $("slot-menu");
    const sidebar = menu.parentElement.getBoundingClientRect();
    menu.style.left = `${Math.min(rect.left - sidebar.left, sidebar.width - 180)}px`;
    menu.style.top = `${rect.bottom - sidebar.top}px`;
  }

  function startUsing(slot) {
    game.using = slot;
    renderInventory();
    notice(
      `Choose what to use ${map.itemName(game.me.inventory.find((i) => i.slot === slot)?.itemId ?? "")} on.`,
    );
  }

  function stopUsing() {
    if (game.using === undefined) return;
    game.using = undefined;
    renderInventory();
    hideNotice();
  }

  function useOn(slot, target) {
    stopUsing();
    // The item the player chose to use: refused, rather than another used, should the slot have changed.
    const itemId = game.me.inventory.find((entry) => entry.slot === slot)?.itemId;
    send("inventory:use", { inventorySlot: slot, itemId, ...target });
  }

  function renderEquipment() {
    const equipment = game.me.equipment ?? {};
    const slots = [...new Set([...EQUIPMENT_SLOTS, ...Object.keys(equipment)])];
    $("equipment").replaceChildren(
      ...slots.map((slot) => {
        const itemId = equipment[slot];
        return el(
          "button.equip-slot",
          {
            class: `equip-slot${itemId ? " full" : ""}`,
            "data-slot": slot,
            title: itemId ? `Remove ${map.itemName(itemId)}` : "",
            onclick: () => itemId && send("inventory:unequip", { slot }),
          },
          el("span.slot-name", { text: SLOT_LABELS[slot] ?? titleCase(slot) }),
          el("span.item-name", { text: itemId ? map.itemName(itemId) : "—" }),
        );
      }),
    );
    renderCombatStyle();
  }

  /** The styles of the weapon worn; its options are built anew only when the kind of weapon changes. */
  function renderCombatStyle() {
    const type = map.items.get(game.me.equipment?.weapon)?.combatType ?? "melee";
    const styles = COMBAT_STYLES[type];
    const select = $("combat-style");
    if (select.dataset.type !== type) {
      select.dataset.type = type;
      select.replaceChildren(
        el("option", { value: "", disabled: true, text: "As last chosen" }),
        ...Object.entries(styles).map(([style, trains]) =>
          el("option", { value: style, text: `${titleCase(style)} (${trains})` }),
        ),
      );
    }
    // A style the weapon cannot use counts as accurate, as the server has it.
    select.value = game.style === undefined ? "" : game.style in styles ? game.style : "accurate";
  }

  function renderSkills() {
    const skills = game.me.skills ?? {};
    const names = Object.keys(skills).sort((a, b) => rank(a) - rank(b));
    $("skills").replaceChildren(...names.map((skill) => skillRow(skill, skills[skill])));
    const total = names.reduce((sum, skill) => sum + skills[skill].level, 0);
    $("total-level").textContent = `Total level: ${total}`;
  }

  /** A skill's level and XP, with the XP still needed to its next level as a bar and in its tooltip. */
  function skillRow(skill, state) {
    const xp = formatNumber(Math.floor(state.xp));
    const next = towardsNextLevel(state);
    const toGo = next
      ? `${formatNumber(next.remaining)} XP to level ${next.next}`
      : "The highest level there is";
    return el(
      "div.skill",
      { "data-skill": skill, title: `${titleCase(skill)}: ${xp} XP; ${toGo}` },
      el("span.skill-name", { text: titleCase(skill) }),
      el("span.skill-level", { text: String(state.level) }),
      el("span.skill-xp", { text: `${xp} xp` }),
      el(
        "span.skill-progress",
        { "aria-label": toGo },
        el("span.skill-progress-fill", { style: `width: ${next ? 100 * next.done : 100}%` }),
      ),
      el("span.skill-to-go", { text: next ? `${formatNumber(next.remaining)} to go` : "max" }),
    );
  }
  const rank = (skill) => SKILL_ORDER.indexOf(skill) + 1 || 99;

  function xpDrop({ skill, gained, level, xp }) {
    const before = game.me?.skills?.[skill]?.level;
    if (game.me?.skills) {
      game.me.skills[skill] = { level, xp };
      renderSkills();
      // A prayer level gained opens prayers, and brings a point.
      if (skill === "prayer") renderPrayers();
    }
    const drop = el("div.xp-drop", { text: `+${formatNumber(gained)} ${titleCase(skill)} XP` });
    $("xp-drops").append(drop);
    setTimeout(() => drop.remove(), 2500);
    if (before !== undefined && level > before)
      chatLine("server", "", `Congratulations, your ${titleCase(skill)} level is now ${level}.`);
  }

  function showTab(name) {
    for (const button of $("tabs").querySelectorAll("button"))
      button.classList.toggle("active", button.dataset.tab === name);
    for (const tab of document.querySelectorAll(".tab"))
      tab.classList.toggle("active", tab.id === `tab-${name}`);
  }

  return {
    renderPlayer,
    renderMeters,
    renderInventory,
    xpDrop,
    renderBank,
    renderStore,
    showTab,
    stopUsing,
    useOn,
  };
}

function shortNumber(n) {
  if (n >= 10_000_000) return `${Math.floor(n / 1_000_000)}M`;
  if (n >= 100_000) return `${Math.floor(n / 1000)}K`;
  return String(n);
}
