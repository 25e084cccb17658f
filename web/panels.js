// The play page's side panels: the player's meters, inventory (and its item menu), equipment, skills,
// prayers, bank and store, drawn from what the server last sent.
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
/** The most one bank or store message may ask for: the protocol's limit on `quantity` (docs/protocol.md). */
const MAX_QUANTITY = 2_147_483_647;
/** What a store pays for an item: this share of its value, rounded down (src/game/stores.ts). */
const SELL_SHARE = 0.4;
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
  /** The amounts typed in the bank's and the store's rows, by row: kept while a panel is redrawn. */
  const typed = new Map();
  /** A row's amount that was not sent, and why: said in its panel until an amount is sent there. */
  let refused;

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
        run: () => send("bank:deposit", { inventorySlot: item.slot, quantity: 1 }),
      });
      if (several)
        options.push({
          label: `Deposit an amount of ${name}…`,
          run: () => typeAmount("bank", `deposit:${item.itemId}`),
        });
      options.push({
        label: `Deposit all ${name}`,
        run: () => send("bank:deposit", { inventorySlot: item.slot, quantity: MAX_QUANTITY }),
      });
    }
    if (game.store) {
      options.push({
        label: `Sell ${name}`,
        run: () =>
          send("store:sell", { targetId: game.store.targetId, inventorySlot: item.slot, quantity: 1 }),
      });
      if (several && sellPrice(def) > 0)
        options.push({
          label: `Sell an amount of ${name}…`,
          run: () => typeAmount("store", `sell:${item.itemId}`),
        });
    }
    if (def?.heals)
      options.push({ label: `Eat ${name}`, run: () => send("inventory:use", { inventorySlot: item.slot }) });
    else if (def?.equipSlot)
      options.push({
        label: `Equip ${name}`,
        run: () => send("inventory:use", { inventorySlot: item.slot }),
      });
    else if (item.itemId.includes("bones"))
      options.push({ label: `Bury ${name}`, run: () => send("inventory:use", { inventorySlot: item.slot }) });
    if (item.itemId.endsWith("logs"))
      options.push({
        label: `Light ${name}`,
        run: () => send("player:action", { action: "light_fire", inventorySlot: item.slot }),
      });
    if (item.itemId.startsWith("raw_"))
      options.push({
        label: `Cook ${name}`,
        run: () => send("player:action", { action: "cook", inventorySlot: item.slot }),
      });
    options.push({ label: `Use ${name}`, run: () => startUsing(item.slot) });
    options.push({
      label: `Drop ${name}`,
      run: () => send("player:action", { action: "drop", inventorySlot: item.slot }),
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
    send("inventory:use", { inventorySlot: slot, ...target });
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

  function renderBank() {
    const me = game.me;
    if (!me) return;
    $("bank-hint").textContent = game.bankOpen
      ? "Click an item to withdraw it (Take takes the amount typed); click an inventory item to deposit it."
      : "Click a bank booth or a banker to use the bank.";
    if (!game.bankOpen) {
      forgetRefusal("bank");
      return $("bank").replaceChildren();
    }
    const bank = me.bank ?? [];
    redraw(
      "bank",
      bank.length === 0
        ? el("p.empty", { text: "Your bank is empty." })
        : el(
            "ul.list.bank-items",
            {},
            bank.map((entry) => {
              const name = map.itemName(entry.itemId);
              return el(
                "li",
                {},
                el("span.name", { text: `${name} × ${formatNumber(entry.quantity)}` }),
                amountControls({
                  panel: "bank",
                  key: `withdraw:${entry.itemId}`,
                  box: "withdraw-amount",
                  label: `amount of ${name} to take`,
                  max: entry.quantity,
                  verb: "Take",
                  name,
                  act: (quantity) => send("bank:withdraw", { itemId: entry.itemId, quantity }),
                }),
                el("button", {
                  text: "All",
                  onclick: () => send("bank:withdraw", { itemId: entry.itemId, quantity: entry.quantity }),
                }),
              );
            }),
          ),
      depositList(),
      refusalLine("bank"),
      el("button.close", {
        text: "Close the bank",
        onclick: () => {
          game.bankOpen = false;
          renderBank();
          renderInventory();
        },
      }),
    );
  }

  /** The inventory's items beside the bank, each to deposit by the amount typed or all of it. */
  function depositList() {
    const rows = heldItems().map(({ itemId, slot, quantity }) => {
      const name = map.itemName(itemId);
      return el(
        "li",
        {},
        el("span.name", { text: `${name} × ${formatNumber(quantity)}` }),
        amountControls({
          panel: "bank",
          key: `deposit:${itemId}`,
          box: "deposit-amount",
          label: `amount of ${name} to deposit`,
          max: quantity,
          verb: "Deposit",
          name,
          act: (amount) => send("bank:deposit", { inventorySlot: slot, quantity: amount }),
        }),
        el("button", {
          text: "All",
          onclick: () => send("bank:deposit", { inventorySlot: slot, quantity }),
        }),
      );
    });
    return el(
      "section.deposit",
      { "aria-label": "Deposit from your inventory" },
      el("h3.panel-heading", { text: "Deposit from your inventory" }),
      rows.length
        ? el("ul.list.deposit-items", {}, rows)
        : el("p.empty", { text: "Your inventory is empty." }),
    );
  }

  /**
   * The inventory as the bank and the store take it, in slot order: an unstackable item once, with how
   * many slots hold it and the first of them (a deposit or sale of it takes from as many slots).
   */
  function heldItems() {
    const held = [];
    const unstackable = new Map();
    for (const item of [...game.me.inventory].sort((a, b) => a.slot - b.slot)) {
      const stackable = map.items.get(item.itemId)?.stackable !== false;
      const same = !stackable && unstackable.get(item.itemId);
      if (same) {
        same.quantity += item.quantity;
        continue;
      }
      const entry = { itemId: item.itemId, slot: item.slot, quantity: item.quantity };
      held.push(entry);
      if (!stackable) unstackable.set(item.itemId, entry);
    }
    return held;
  }

  /**
   * A row's amount box and the button that runs `act` with the amount typed in it; no box for a single
   * item unless `always`. A bad amount (not a whole number from 1 to MAX_QUANTITY) is said in the panel,
   * and nothing sent: the server would refuse it, or read "0" as something it was not.
   */
  function amountControls({ panel, key, box, label, max, always = false, verb, name, act }) {
    const amount =
      (always || max > 1) &&
      el(`input.amount.${box}`, {
        type: "number",
        min: 1,
        max: Math.max(1, max),
        value: typed.get(key) ?? 1,
        "data-key": key,
        "aria-label": label,
        "aria-invalid": refused?.key === key ? "true" : undefined,
        oninput: (event) => typed.set(key, event.target.value),
        // Enter in the box sends the amount, as the button does: the hands stay on the keyboard.
        onkeydown: (event) => event.key === "Enter" && button.click(),
      });
    const button = el("button", {
      text: verb,
      onclick: () => {
        const quantity = amount ? amountIn(amount) : 1;
        if (quantity === undefined)
          return refuse(
            panel,
            key,
            amount,
            `${verb} ${name}: the amount must be a whole number from 1 to ${formatNumber(MAX_QUANTITY)}.`,
          );
        forgetRefusal(panel);
        act(quantity);
      },
    });
    return [amount, button];
  }

  /**
   * Fills `panel` with `children`, the focus kept in the amount box it was in: the panels are redrawn at
   * every change of the player (a prayer point drained, a hit taken) while an amount may be being typed.
   */
  function redraw(panel, ...children) {
    const focused = $(panel).contains(document.activeElement) && document.activeElement.dataset.key;
    $(panel).replaceChildren(...children);
    if (focused) amountBox(panel, focused)?.focus();
  }

  const amountBox = (panel, key) =>
    [...$(panel).querySelectorAll("input.amount")].find((input) => input.dataset.key === key);

  /** Shows `panel` with the focus in the amount box of the row `key`, its amount selected to type over. */
  function typeAmount(panel, key) {
    showTab(panel);
    const box = amountBox(panel, key);
    box?.focus();
    box?.select();
  }

  /** Says in `panel` why the amount in `box` was not sent, marking the box, without redrawing the panel. */
  function refuse(panel, key, box, text) {
    refused = { panel, key, text };
    box.setAttribute("aria-invalid", "true");
    const line = $(panel).querySelector(".amount-error");
    line.textContent = text;
    line.hidden = false;
  }

  function forgetRefusal(panel) {
    if (refused?.panel !== panel) return;
    refused = undefined;
    const line = $(panel).querySelector(".amount-error");
    if (line) line.hidden = true;
    for (const box of $(panel).querySelectorAll("input.amount")) box.removeAttribute("aria-invalid");
  }

  /** Where a panel says why an amount was not sent: there while it is redrawn, read out when it changes. */
  function refusalLine(panel) {
    const text = refused?.panel === panel ? refused.text : "";
    return el("p.amount-error", { role: "alert", text, hidden: !text });
  }

  function renderStore() {
    const store = game.store;
    $("store-hint").textContent = store
      ? `${store.name}: buy the amount typed, or sell yours below.`
      : "Click a shopkeeper to see their wares.";
    if (!store) {
      forgetRefusal("store");
      return $("store").replaceChildren();
    }
    redraw(
      "store",
      el(
        "ul.list.store-items",
        {},
        store.items.map((entry) => {
          const name = map.itemName(entry.itemId);
          const [amount, buy] = amountControls({
            panel: "store",
            key: `buy:${entry.itemId}`,
            box: "buy-amount",
            label: `amount of ${name} to buy`,
            // More than the stock may be asked for: the server sells what there is, and says so.
            max: entry.stock,
            always: true,
            verb: "Buy",
            name,
            act: (quantity) =>
              send("store:buy", { targetId: store.targetId, itemId: entry.itemId, quantity }),
          });
          buy.disabled = entry.stock === 0;
          return el(
            "li",
            {},
            el("span.name", { text: `${name} (${entry.stock}) — ${formatNumber(entry.price)} gp` }),
            amount,
            buy,
          );
        }),
      ),
      sellList(store),
      refusalLine("store"),
      el("button.close", {
        text: "Close the store",
        onclick: () => {
          game.store = undefined;
          renderStore();
        },
      }),
    );
  }

  /** The inventory's items the store buys (tradeable, worth a coin to it), each to sell by the amount typed. */
  function sellList(store) {
    const rows = heldItems()
      .filter(({ itemId }) => sellPrice(map.items.get(itemId)) > 0)
      .map(({ itemId, slot, quantity }) => {
        const name = map.itemName(itemId);
        const price = sellPrice(map.items.get(itemId));
        return el(
          "li",
          {},
          el("span.name", { text: `${name} × ${formatNumber(quantity)} — ${formatNumber(price)} gp each` }),
          amountControls({
            panel: "store",
            key: `sell:${itemId}`,
            box: "sell-amount",
            label: `amount of ${name} to sell`,
            max: quantity,
            verb: "Sell",
            name,
            act: (amount) =>
              send("store:sell", { targetId: store.targetId, inventorySlot: slot, quantity: amount }),
          }),
        );
      });
    return el(
      "section.sell",
      { "aria-label": "Sell from your inventory" },
      el("h3.panel-heading", { text: "Sell from your inventory" }),
      rows.length
        ? el("ul.list.sell-items", {}, rows)
        : el("p.empty", { text: "Nothing you carry is worth a coin to the store." }),
    );
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

/** The amount in a number box as the server takes it (a whole number, 1 to MAX_QUANTITY), or undefined. */
function amountIn(box) {
  // A number box reads as empty for text that is no number ("1e", "--").
  const amount = Number(box.value);
  const whole = box.value.trim() !== "" && Number.isInteger(amount);
  return whole && amount >= 1 && amount <= MAX_QUANTITY ? amount : undefined;
}

/** What a store pays for one of an item, as the server works it out; 0 for what it does not buy. */
function sellPrice(def) {
  if (!def || def.id === "coins" || !def.tradeable) return 0;
  return Math.floor((def.value ?? 0) * SELL_SHARE);
}

function shortNumber(n) {
  if (n >= 10_000_000) return `${Math.floor(n / 1_000_000)}M`;
  if (n >= 100_000) return `${Math.floor(n / 1000)}K`;
  return String(n);
}
