// The trade window: requests (sent and incoming), both offers, accepts, the confirmation screen with the
// offers' values, completion, cancellation and errors, driven by the server's trade events.
import { el, formatNumber } from "./common.js";

const CANCEL_REASONS = {
  cancelled: "The trade was cancelled.",
  declined: "The trade request was declined.",
  partner_disconnected: "Your partner disconnected.",
  expired: "The trade expired.",
  partner_busy: "The other player is trading with someone else.",
  commit_failed: "The trade could not be completed; nothing changed hands.",
  server_shutdown: "The server is shutting down.",
  player_died: "The trade ended: a player died.",
};

export class TradeWindow {
  /**
   * @param {HTMLElement} root
   * @param {{ send: (event: string, data: object) => void, itemName: (id: string) => string,
   *   inventory: () => Array<{slot: number, itemId: string, quantity: number}> }} host
   */
  constructor(root, host) {
    this.root = root;
    this.host = host;
    this.incoming = new Map();
    this.outgoing = undefined;
    this.trade = undefined;
    this.result = undefined;
    this.error = undefined;
    /** What the player typed in the offer picker, by inventory slot: kept as the window is drawn again. */
    this.typed = new Map();
  }

  /** Whether offers can be changed now (the inventory's menu offers items then). */
  get offering() {
    return this.trade?.stage === "offer";
  }

  request(player) {
    this.result = undefined;
    this.host.send("tradeRequest", { targetPlayerId: player.id });
    this.outgoing = { tradeId: undefined, name: player.name };
    this.render();
  }

  /** How many of an inventory stack are not in the offer yet: what offering more may add. */
  leftToOffer(item) {
    const offered = this.trade?.myOffer.find((entry) => entry.inventorySlot === item.slot)?.quantity ?? 0;
    return item.quantity - offered;
  }

  offer(slot, quantity) {
    if (this.trade)
      this.host.send("tradeAddItem", { tradeId: this.trade.tradeId, inventorySlot: slot, quantity });
  }

  /** A trade event from the server; true when it was one. */
  handle(event, data) {
    switch (event) {
      case "tradeRequestSent":
        this.outgoing = { tradeId: data.tradeId, name: data.targetPlayerName };
        break;
      case "tradeIncoming":
        this.incoming.set(data.tradeId, data.fromPlayerName);
        this.result = undefined;
        break;
      case "tradeStarted":
        this.incoming.delete(data.tradeId);
        this.outgoing = undefined;
        this.error = undefined;
        this.result = undefined;
        this.typed.clear();
        this.trade = {
          tradeId: data.tradeId,
          partnerName: data.partnerName,
          stage: "offer",
          myOffer: [],
          theirOffer: [],
        };
        break;
      case "tradeUpdated":
        if (this.trade?.tradeId !== data.tradeId) return true;
        // An operation went through: a refusal shown before is past.
        this.error = undefined;
        // On the confirmation screen, an accept the other side has yet to follow (the offers stay frozen);
        // with no accept left, the trade went back to the offers (an item offered was no longer there).
        Object.assign(this.trade, {
          stage:
            this.trade.stage === "confirm" && (data.myAccepted || data.theirAccepted) ? "confirm" : "offer",
          myOffer: data.myOffer,
          theirOffer: data.theirOffer,
          myAccepted: data.myAccepted,
          theirAccepted: data.theirAccepted,
        });
        break;
      case "tradeConfirmScreen":
        if (this.trade?.tradeId !== data.tradeId) return true;
        this.error = undefined;
        Object.assign(this.trade, {
          stage: "confirm",
          myOffer: data.myOffer,
          theirOffer: data.theirOffer,
          values: data.values,
          myAccepted: false,
          theirAccepted: false,
        });
        break;
      case "tradeCompleted":
        this.result = {
          kind: "completed",
          partnerName: this.trade?.partnerName,
          received: data.receivedItems,
          given: this.trade?.myOffer ?? [],
        };
        this.trade = undefined;
        break;
      case "tradeCancelled":
        this.incoming.delete(data.tradeId);
        if (this.outgoing?.tradeId === data.tradeId) this.outgoing = undefined;
        if (this.trade?.tradeId === data.tradeId || !this.trade) {
          const reason = CANCEL_REASONS[data.reason] ?? `The trade ended (${data.reason}).`;
          // A swap that failed says why in the tradeError just before (an inventory without room, say).
          const why = data.reason === "commit_failed" && this.error ? ` ${this.error}` : "";
          this.trade = undefined;
          this.error = undefined;
          this.result = { kind: "cancelled", message: reason + why };
        }
        break;
      case "tradeError":
        this.error = data.message;
        // A request not yet answered by tradeRequestSent was the refused one, during a trade too.
        if (this.outgoing && !this.outgoing.tradeId) this.outgoing = undefined;
        if (!this.trade && !this.outgoing) this.result = { kind: "error", message: data.message };
        break;
      default:
        return false;
    }
    this.render();
    return true;
  }

  /** After a reconnection: the server ended whatever trade there was when the connection dropped. */
  reset() {
    this.incoming.clear();
    this.outgoing = undefined;
    if (this.trade)
      this.result = {
        kind: "cancelled",
        message: CANCEL_REASONS.partner_disconnected.replace("Your partner", "You"),
      };
    this.trade = undefined;
    this.render();
  }

  render() {
    const root = this.root;
    root.replaceChildren();
    const parts = [];
    for (const [tradeId, name] of this.incoming) {
      parts.push(
        el(
          "div.trade-request",
          {},
          el("span", { text: `${name} wishes to trade with you.` }),
          el("button.primary", {
            text: "Accept",
            onclick: () => this.host.send("tradeRequestRespond", { tradeId, accept: true }),
          }),
          el("button", {
            text: "Decline",
            onclick: () => this.host.send("tradeRequestRespond", { tradeId, accept: false }),
          }),
        ),
      );
    }
    if (this.outgoing && !this.trade) {
      const { tradeId, name } = this.outgoing;
      parts.push(
        el(
          "div.trade-request",
          {},
          el("span", { text: `Sending a trade request to ${name}…` }),
          tradeId &&
            el("button", { text: "Cancel", onclick: () => this.host.send("tradeCancel", { tradeId }) }),
        ),
      );
    }
    if (this.trade) parts.push(this.tradePanel());
    if (this.result && !this.trade) parts.push(this.resultPanel());
    if (this.error && this.trade) parts.push(el("p.trade-error", { role: "alert", text: this.error }));
    root.append(...parts);
    root.hidden = parts.length === 0;
  }

  offerList(offer, emptyText, removable) {
    if (offer.length === 0) return el("p.empty", { text: emptyText });
    return el(
      "ul.offer",
      {},
      offer.map((entry) => {
        const name = this.host.itemName(entry.itemId);
        return el(
          "li",
          {},
          el("span.name", { text: `${name} × ${formatNumber(entry.quantity)}` }),
          // A button, not a click on the row: it is reached with the keyboard too.
          removable &&
            el("button.remove", {
              text: "Remove",
              title: `Take back the ${name}`,
              onclick: () =>
                this.host.send("tradeRemoveItem", {
                  tradeId: this.trade.tradeId,
                  inventorySlot: entry.inventorySlot,
                }),
            }),
        );
      }),
    );
  }

  tradePanel() {
    const t = this.trade;
    const confirm = t.stage === "confirm";
    const tradeId = t.tradeId;
    const status = t.myAccepted
      ? "Waiting for the other player…"
      : t.theirAccepted
        ? "The other player has accepted."
        : confirm
          ? "Are you sure you want to make this trade?"
          : "Offer items from your inventory, then accept.";
    return el(
      "div.trade-window",
      { role: "dialog", "aria-label": `Trading with ${t.partnerName}` },
      el("h3", {
        text: confirm ? `Confirm the trade with ${t.partnerName}` : `Trading with ${t.partnerName}`,
      }),
      el(
        "div.offers",
        {},
        el(
          "div.side.mine",
          {},
          el("h4", {
            text: confirm ? `You give (value ${formatNumber(t.values.mine)} coins)` : "Your offer",
          }),
          this.offerList(t.myOffer, "Nothing", !confirm),
        ),
        el(
          "div.side.theirs",
          {},
          el("h4", {
            text: confirm
              ? `You receive (value ${formatNumber(t.values.theirs)} coins)`
              : `${t.partnerName}'s offer`,
          }),
          this.offerList(t.theirOffer, "Nothing", false),
        ),
      ),
      !confirm && this.offerPicker(),
      el("p.trade-status", { text: status }),
      el(
        "div.buttons",
        {},
        el("button.primary", {
          text: "Accept",
          disabled: t.myAccepted,
          onclick: () => this.host.send("tradeAccept", { tradeId }),
        }),
        el("button", { text: "Decline", onclick: () => this.host.send("tradeCancel", { tradeId }) }),
      ),
    );
  }

  /** The inventory's items, each with a quantity to offer. */
  offerPicker() {
    const offered = new Map(this.trade.myOffer.map((entry) => [entry.inventorySlot, entry.quantity]));
    const rows = this.host
      .inventory()
      .filter((item) => (offered.get(item.slot) ?? 0) < item.quantity)
      .map((item) => {
        const left = item.quantity - (offered.get(item.slot) ?? 0);
        const input = el("input", {
          type: "number",
          min: 1,
          max: left,
          value: this.typed.get(item.slot) ?? left,
          "aria-label": `quantity of ${this.host.itemName(item.itemId)}`,
          oninput: (event) => this.typed.set(item.slot, event.target.value),
        });
        return el(
          "li",
          {},
          el("span.name", {
            text: `${this.host.itemName(item.itemId)}${left > 1 ? ` (${formatNumber(left)})` : ""}`,
          }),
          left > 1 && input,
          el("button", {
            text: "Offer",
            onclick: () => {
              this.typed.delete(item.slot);
              this.offer(item.slot, left > 1 ? Math.max(1, Math.floor(Number(input.value)) || 1) : 1);
            },
          }),
        );
      });
    return el(
      "details.offer-picker",
      { open: true },
      el("summary", { text: "Your inventory" }),
      el("ul", {}, rows),
    );
  }

  resultPanel() {
    const r = this.result;
    const close = el("button", {
      text: "Close",
      onclick: () => {
        this.result = undefined;
        this.render();
      },
    });
    if (r.kind === "completed") {
      const received = r.received.length
        ? r.received
            .map((item) => `${this.host.itemName(item.itemId)} × ${formatNumber(item.quantity)}`)
            .join(", ")
        : "nothing";
      return el(
        "div.trade-result.completed",
        { role: "status" },
        el("strong", { text: "Trade completed." }),
        el("span", { text: ` You received ${received}.` }),
        close,
      );
    }
    return el(`div.trade-result.${r.kind}`, { role: "status" }, el("span", { text: r.message }), close);
  }
}
