// The bank's and the store's panels: what the bank holds and what the store sells, with the inventory
// beside each to deposit or sell, every row by the amount typed in its box (amount-boxes.js).
import { createAmountBoxes } from "./amount-boxes.js";
import { el, formatNumber } from "./common.js";

const $ = (id) => document.getElementById(id);
/** What a store pays for an item: this share of its value, rounded down (src/game/stores.ts). */
const SELL_SHARE = 0.4;

/**
 * The bank and store panels of a page. `game` is the page's state, `map` the world's items; `send` sends
 * an event, `showTab` shows a tab of the side panel and `renderInventory` redraws the inventory.
 */
export function createBankStorePanels({ game, map, send, showTab, renderInventory }) {
  const { amountControls, redraw, typeAmount, forgetRefusal, refusalLine } = createAmountBoxes({ showTab });

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
          act: (amount) => send("bank:deposit", { inventorySlot: slot, itemId, quantity: amount }),
        }),
        el("button", {
          text: "All",
          onclick: () => send("bank:deposit", { inventorySlot: slot, itemId, quantity }),
        }),
      );
    });
    return inventorySection("deposit", "Deposit from your inventory", rows, "Your inventory is empty.");
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
              send("store:sell", { targetId: store.targetId, inventorySlot: slot, itemId, quantity: amount }),
          }),
        );
      });
    return inventorySection(
      "sell",
      "Sell from your inventory",
      rows,
      "Nothing you carry is worth a coin to the store.",
    );
  }

  return { renderBank, renderStore, heldItems, typeAmount };
}

/** The inventory's rows under a panel's own (`kind`: deposit or sell), or why there are none. */
function inventorySection(kind, heading, rows, empty) {
  return el(
    `section.${kind}`,
    { "aria-label": heading },
    el("h3.panel-heading", { text: heading }),
    rows.length ? el(`ul.list.${kind}-items`, {}, rows) : el("p.empty", { text: empty }),
  );
}

/** What a store pays for one of an item, as the server works it out; 0 for what it does not buy. */
export function sellPrice(def) {
  if (!def || def.id === "coins" || !def.tradeable) return 0;
  return Math.floor((def.value ?? 0) * SELL_SHARE);
}
