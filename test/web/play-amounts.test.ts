// Amounts typed on the play page: buying from and selling to a store, depositing into the bank. What the
// server made of each is read back from the page and from the API; a bad amount sends nothing.
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { request } from "../api/support.js";
import type { TestServer } from "../support/server.js";
import { openPage, screenshot, tokenOf, type WatchedPage } from "./browser.js";
import {
  becomeAdmin,
  clickTile,
  coinsOf,
  openClient,
  playPageSuite,
  say,
  slotMenu,
  teleport,
} from "./play-helpers.js";

const KEEPER = { x: 22, z: 30 };
const BANK_BOOTH = { x: 30, z: 26 };
/** Each refused before it is sent: none, less than one, part of one, past the protocol's limit. */
const BAD_AMOUNTS = ["", "0", "-3", "2.5", "2147483648"];
const SAID = "the amount must be a whole number from 1 to 2,147,483,647.";

/** A play page whose sent frames' events are kept, in order, from its first connection on. */
async function openWatched(browser: Browser, server: TestServer): Promise<WatchedPage & { sent: string[] }> {
  const watched = await openPage(browser);
  const sent: string[] = [];
  watched.page.on("websocket", (socket) =>
    socket.on("framesent", ({ payload }) => sent.push(JSON.parse(String(payload)).event)),
  );
  await watched.page.goto(`${server.baseUrl}/play`);
  await watched.page.locator('#status[data-status="online"]').waitFor();
  await watched.page.locator("#inventory .slot.full").first().waitFor();
  return { ...watched, sent };
}

/** The player as the API reads it back, with the page's own sign-in. */
async function playerOf(server: TestServer, page: Page) {
  const response = await request(server, "/api/v1/player", { token: await tokenOf(page) });
  assert.equal(response.status, 200);
  return (await response.json()) as {
    coins: number;
    inventory: { itemId: string; quantity: number }[];
    bank: { itemId: string; quantity: number }[];
  };
}

const countOf = (items: { itemId: string; quantity: number }[], itemId: string) =>
  items.filter((item) => item.itemId === itemId).reduce((sum, item) => sum + item.quantity, 0);

/** The coins count, shown in the inventory tab (hidden behind the bank's and the store's). */
const coinsShown = (page: Page, count: number) =>
  page
    .locator("#coins", { hasText: new RegExp(`^${count.toLocaleString("en")}$`) })
    .waitFor({ state: "attached" });

/**
 * Types each bad amount in `box` and presses `button`: the panel says why each time, and no frame of
 * `event` leaves the page.
 */
async function refusesBadAmounts(
  page: Page,
  sent: string[],
  panel: string,
  box: ReturnType<Page["locator"]>,
  button: ReturnType<Page["locator"]>,
  said: string,
  event: string,
) {
  const before = sent.filter((name) => name === event).length;
  for (const amount of BAD_AMOUNTS) {
    await box.fill(amount);
    await button.click();
    await page.locator(`${panel} .amount-error`, { hasText: said }).waitFor({ timeout: 3000 });
    assert.equal(await box.getAttribute("aria-invalid"), "true", `the box of "${amount}" is marked`);
  }
  // Text a number box cannot read ("1e") is no amount either.
  await box.fill("");
  await box.pressSequentially("1e");
  await button.click();
  await page.waitForTimeout(800);
  assert.equal(sent.filter((name) => name === event).length, before, `no ${event} sent for a bad amount`);
}

describe("the play page: amounts typed for the store and the bank", function () {
  this.timeout(120000);
  const suite = playPageSuite(150);
  const { pages } = suite;

  it("buys and sells the amounts typed in the store's rows, and sends nothing for a bad one", async () => {
    const w = await openWatched(suite.browser, suite.server);
    pages.push(w);
    const { page, sent } = w;
    await becomeAdmin(page);
    await say(page, "/give coins 975");
    await coinsShown(page, 1000);
    const at = await teleport(page, { x: 23, z: 30 });
    await clickTile(page, at, KEEPER);
    const bread = page.locator("#store .store-items li", { hasText: "Bread" });
    await bread.waitFor();

    await refusesBadAmounts(
      page,
      sent,
      "#store",
      bread.locator("input.buy-amount"),
      bread.getByRole("button", { name: "Buy", exact: true }),
      `Buy Bread: ${SAID}`,
      "store:buy",
    );
    assert.equal(await coinsOf(page), 1000, "nothing bought");

    // 3 loaves at 12 gp.
    await bread.locator("input.buy-amount").fill("3");
    await bread.getByRole("button", { name: "Buy", exact: true }).click();
    await coinsShown(page, 964);
    assert.ok(sent.includes("store:buy"), "the page's frames are watched");
    assert.ok(await page.locator("#store .amount-error").isHidden(), "the refusal is gone once sent");
    const selling = page.locator("#store .sell-items li", { hasText: "Bread" });
    await selling.locator(".name", { hasText: "Bread × 3 — 4 gp each" }).waitFor();

    await refusesBadAmounts(
      page,
      sent,
      "#store",
      selling.locator("input.sell-amount"),
      selling.getByRole("button", { name: "Sell", exact: true }),
      `Sell Bread: ${SAID}`,
      "store:sell",
    );

    // 2 of the 3 sold back, at 40 % of 12 gp each.
    await selling.locator("input.sell-amount").fill("2");
    await selling.getByRole("button", { name: "Sell", exact: true }).click();
    await coinsShown(page, 972);
    await screenshot(page, "play-store-amounts");
    assert.equal(await page.locator('#inventory .slot[data-item="bread"]').count(), 1);
    const player = await playerOf(suite.server, page);
    assert.equal(player.coins, 972);
    assert.equal(countOf(player.inventory, "bread"), 1, "the server keeps one loaf of the three");
    await w.context.close();
  });

  it("deposits the amount typed for an inventory item, and sends nothing for a bad one", async () => {
    const w = await openWatched(suite.browser, suite.server);
    pages.push(w);
    const { page, sent } = w;
    await becomeAdmin(page);
    await say(page, "/give coins 15");
    await coinsShown(page, 40);
    const at = await teleport(page, { x: 31, z: 27 });
    await clickTile(page, at, BANK_BOOTH);
    await page.locator("#bank-hint", { hasText: "Click an item to withdraw it" }).waitFor();
    const coins = page.locator("#bank .deposit-items li", { hasText: "Coins" });

    await refusesBadAmounts(
      page,
      sent,
      "#bank",
      coins.locator("input.deposit-amount"),
      coins.getByRole("button", { name: "Deposit", exact: true }),
      `Deposit Coins: ${SAID}`,
      "bank:deposit",
    );
    assert.equal(await page.locator("#bank p.empty", { hasText: "Your bank is empty." }).count(), 1);

    await coins.locator("input.deposit-amount").fill("7");
    await coins.getByRole("button", { name: "Deposit", exact: true }).click();
    await coinsShown(page, 33);
    assert.ok(sent.includes("bank:deposit"), "the page's frames are watched");
    await page.locator("#bank .bank-items li .name", { hasText: "Coins × 7" }).waitFor();

    // From the inventory's menu: its row's box, to type in and send with Enter.
    await slotMenu(page, "coins", "Deposit an amount of Coins");
    await page.keyboard.type("5");
    await page.keyboard.press("Enter");
    await coinsShown(page, 28);
    await screenshot(page, "play-bank-amounts");
    const spilling = await page.locator("#tab-bank").evaluate((tab) => {
      const right = tab.getBoundingClientRect().right;
      return [...tab.querySelectorAll("button, input")]
        .filter((control) => control.getBoundingClientRect().right > right + 1)
        .map((control) => control.closest("li")?.textContent);
    });
    assert.deepEqual(spilling, [], "every row's box and buttons fit in the sidebar");
    await page.locator("#bank .bank-items li .name", { hasText: "Coins × 12" }).waitFor();
    const player = await playerOf(suite.server, page);
    assert.equal(player.coins, 28);
    assert.equal(countOf(player.bank, "coins"), 12, "the server banked 7 and 5 coins");
    await w.context.close();
  });
  it("keeps the caret in an amount box while the store is redrawn by another player's purchase", async () => {
    const a = await openClient(suite.browser, suite.server);
    const b = await openClient(suite.browser, suite.server);
    pages.push(a, b);
    for (const { page } of [a, b]) await becomeAdmin(page);
    await say(a.page, "/give bread 3");
    await clickTile(a.page, await teleport(a.page, { x: 23, z: 30 }), KEEPER);
    await clickTile(b.page, await teleport(b.page, { x: 21, z: 30 }), KEEPER);
    await a.page.locator("#store .sell-items li", { hasText: "Bread × 3" }).waitFor();
    const tinderbox = b.page.locator("#store .store-items li", { hasText: "Tinderbox" });
    // B's purchase changes the store's stock, and A's store panel is drawn again.
    const othersBuy = async () => {
      const stock = a.page.locator("#store .store-items li", { hasText: "Tinderbox" }).locator(".name");
      const before = await stock.textContent();
      await tinderbox.getByRole("button", { name: "Buy", exact: true }).click();
      await a.page.waitForFunction(
        (shown) =>
          [...document.querySelectorAll("#store .store-items li .name")].some(
            (name) => name.textContent?.startsWith("Tinderbox") && name.textContent !== shown,
          ),
        before,
      );
    };

    const buy = a.page.locator("#store .store-items li", { hasText: "Bread" }).locator("input.buy-amount");
    await buy.click();
    await buy.press("Control+a");
    await a.page.keyboard.type("1");
    await othersBuy();
    await a.page.keyboard.type("2");
    assert.equal(await buy.inputValue(), "12", "typed on where the caret was, not before the 1");

    // The menu's "an amount" selects the box's amount: typed over after a redraw too.
    await slotMenu(a.page, "bread", "Sell an amount of Bread");
    await othersBuy();
    await a.page.keyboard.type("2");
    await a.page.keyboard.press("Enter");
    await a.page.waitForFunction(
      () => document.querySelectorAll('#inventory .slot[data-item="bread"]').length === 1,
    );
    assert.equal(countOf((await playerOf(suite.server, a.page)).inventory, "bread"), 1, "2 of 3 loaves sold");
  });
});
