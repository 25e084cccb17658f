// The amount boxes of the bank's and the store's rows: what is typed in them, kept while a panel is redrawn,
// and an amount that was not sent, said in its panel with why.
import { el, formatNumber } from "./common.js";

const $ = (id) => document.getElementById(id);
/** The most one bank or store message may ask for: the protocol's limit on `quantity` (docs/protocol.md). */
export const MAX_QUANTITY = 2_147_483_647;

/** The amount boxes of a page's panels; `showTab` shows a tab of the side panel by its name. */
export function createAmountBoxes({ showTab }) {
  /** The amounts typed in the bank's and the store's rows, by row: kept while a panel is redrawn. */
  const typed = new Map();
  /** A row's amount that was not sent, and why: said in its panel until an amount is sent there. */
  let refused;

  /**
   * A row's amount box and the button that runs `act` with the amount typed in it; no box for a single
   * item unless `always`. A bad amount (not a whole number from 1 to MAX_QUANTITY) is said in the panel,
   * and nothing sent: the server would refuse it, or read "0" as something it was not.
   */
  function amountControls({ panel, key, box, label, max, always = false, verb, name, act }) {
    const amount =
      (always || max > 1) &&
      // Text with a digits keyboard rather than a number box: a number box tells no script where its caret
      // is, and a redraw that lost it would put what is typed next in front of the amount ("2" + "1").
      el(`input.amount.${box}`, {
        type: "text",
        inputmode: "numeric",
        autocomplete: "off",
        title: `1 to ${formatNumber(Math.max(1, max))}`,
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
   * Fills `panel` with `children`, the focus and the caret (or selection) kept in the amount box they were
   * in: the panels are redrawn at every change of the player (a prayer point drained, a hit taken, a
   * store's restock) while an amount may be being typed.
   */
  function redraw(panel, ...children) {
    const active = document.activeElement;
    const focused = $(panel).contains(active) && active.dataset.key;
    const caret = focused && [active.selectionStart, active.selectionEnd, active.selectionDirection];
    $(panel).replaceChildren(...children);
    if (!focused) return;
    const box = amountBox(panel, focused);
    box?.focus();
    if (box && caret[0] !== null) box.setSelectionRange(...caret);
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

  return { amountControls, redraw, typeAmount, forgetRefusal, refusalLine };
}

/** The amount in a box as the server takes it (a whole number, 1 to MAX_QUANTITY), or undefined. */
function amountIn(box) {
  // Number("1e") and Number("--") are NaN; Number(" ") is 0, refused below as no amount.
  const amount = Number(box.value);
  const whole = box.value.trim() !== "" && Number.isInteger(amount);
  return whole && amount >= 1 && amount <= MAX_QUANTITY ? amount : undefined;
}
