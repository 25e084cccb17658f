// Trades between two pages (two browser contexts), through the trade window.
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { screenshot, type WatchedPage } from "./browser.js";
import {
  becomeAdmin,
  clickTile,
  coinsOf,
  openClient,
  playPageSuite,
  say,
  standingStill,
  startTrade,
  teleport,
} from "./play-helpers.js";

describe("the play page: trading between two pages", function () {
  this.timeout(120000);
  const suite = playPageSuite(150);
  const { pages } = suite;
  /** Two new players next to each other, at `x`. */
  async function twoPlayers(x: number): Promise<[Page, Page, WatchedPage, WatchedPage]> {
    const a = await openClient(suite.browser, suite.server);
    const b = await openClient(suite.browser, suite.server);
    pages.push(a, b);
    await becomeAdmin(a.page);
    await becomeAdmin(b.page);
    await teleport(a.page, { x, z: 34 });
    await teleport(b.page, { x: x + 1, z: 34 });
    return [a.page, b.page, a, b];
  }

  /**
   * A and B trading at (x, 34), and C six tiles west of A: to the left of the trade window on A's screen
   * (which covers A and B), so that A can right-click C during the trade.
   */
  async function tradingWithBystander(
    x: number,
  ): Promise<{ a: Page; b: Page; cAt: { x: number; z: number } }> {
    const [a, b] = await twoPlayers(x);
    const c = await openClient(suite.browser, suite.server);
    pages.push(c);
    await becomeAdmin(c.page);
    const cAt = await teleport(c.page, { x: x - 6, z: 34 });
    await startTrade(a, b);
    return { a, b, cAt };
  }

  async function closeAll() {
    for (const { context } of pages.splice(0)) await context.close();
  }

  it("keeps the quantity typed in the offer picker when the partner changes their offer", async () => {
    const [a, b, wa, wb] = await twoPlayers(20);
    await startTrade(a, b);
    const coinsRow = a.locator(".offer-picker li", { hasText: "Coins" });
    await coinsRow.locator("input").fill("5");
    // Meanwhile B offers an axe.
    await b
      .locator(".offer-picker li", { hasText: "Bronze axe" })
      .locator("button", { hasText: "Offer" })
      .click();
    await a.locator(".side.theirs li", { hasText: "Bronze axe" }).waitFor();
    await coinsRow.locator("button", { hasText: "Offer" }).click();
    await b.locator(".side.theirs li", { hasText: "Coins" }).waitFor();
    assert.equal(
      await a.locator(".side.mine li .name").first().textContent(),
      "Coins × 5",
      "A offered the 5 coins typed, not all 25",
    );
    await a.locator(".trade-window button", { hasText: "Decline" }).click();
    await b.locator(".trade-result", { hasText: "The trade was cancelled." }).waitFor();
    await wa.context.close();
    await wb.context.close();
    pages.length = 0;
  });

  it("clears a refused offer's error once a later offer goes through", async () => {
    const [a, b, wa, wb] = await twoPlayers(24);
    await say(a, "/give guild_token 1");
    await a.locator('#inventory .slot[data-item="guild_token"]').waitFor();
    await startTrade(a, b);
    await a
      .locator(".offer-picker li", { hasText: "Guild token" })
      .locator("button", { hasText: "Offer" })
      .click();
    await a.locator(".trade-error", { hasText: "That item cannot be traded." }).waitFor();
    await a
      .locator(".offer-picker li", { hasText: "Bronze axe" })
      .locator("button", { hasText: "Offer" })
      .click();
    await a.locator(".side.mine li", { hasText: "Bronze axe" }).waitFor();
    assert.equal(await a.locator(".trade-error").count(), 0, "the old refusal is no longer shown");
    await a.locator(".trade-window button", { hasText: "Decline" }).click();
    await b.locator(".trade-result", { hasText: "The trade was cancelled." }).waitFor();
    await wa.context.close();
    await wb.context.close();
    pages.length = 0;
  });

  it("tells the players why a trade failed when the receiver's inventory is full", async () => {
    const [a, b, wa, wb] = await twoPlayers(28);
    // B's inventory: full of logs.
    await say(b, "/give logs 28");
    await b.waitForTimeout(500);
    assert.equal(await b.locator("#inventory .slot.full").count(), 28, "B's inventory is full");
    await startTrade(a, b);
    await a
      .locator(".offer-picker li", { hasText: "Bronze axe" })
      .locator("button", { hasText: "Offer" })
      .click();
    await b.locator(".side.theirs li", { hasText: "Bronze axe" }).waitFor();
    await a.locator(".trade-window button", { hasText: "Accept" }).click();
    await b.locator(".trade-status", { hasText: "The other player has accepted." }).waitFor();
    await b.locator(".trade-window button", { hasText: "Accept" }).click();
    await a
      .locator(".trade-window h3", { hasText: "Confirm the trade" })
      .waitFor()
      .catch(() => {});
    if (await a.locator(".trade-window h3", { hasText: "Confirm the trade" }).count()) {
      await a.locator(".trade-window button", { hasText: "Accept" }).click();
      await b.locator(".trade-window button", { hasText: "Accept" }).click();
    }
    await b.locator(".trade-result").waitFor();
    const shown = async (page: Page) =>
      `${await page.locator("#trade").textContent()} | ${await page.locator("#chat-log").textContent()}`;
    console.log("A sees:", await shown(a));
    console.log("B sees:", await shown(b));
    assert.match(await shown(b), /no room/i, "B is told its inventory has no room");
    assert.match(await shown(a), /no room/i, "A is told the other's inventory has no room");
    await wa.context.close();
    await wb.context.close();
    pages.length = 0;
  });

  it("a trade cancelled by the partner midway closes the window and stops offering items", async () => {
    const [a, b, wa, wb] = await twoPlayers(32);
    const aCoins = await coinsOf(a);
    await startTrade(a, b);
    await a.locator(".offer-picker li", { hasText: "Coins" }).locator("button", { hasText: "Offer" }).click();
    await b.locator(".side.theirs li", { hasText: "Coins × 25" }).waitFor();
    await a.locator(".trade-window button", { hasText: "Accept" }).click();
    await b.locator(".trade-window button", { hasText: "Decline" }).click();
    await a.locator(".trade-result.cancelled", { hasText: "The trade was cancelled." }).waitFor();
    await b.locator(".trade-result.cancelled", { hasText: "The trade was cancelled." }).waitFor();
    assert.equal(await a.locator(".trade-window").count(), 0);
    await a.locator('#inventory .slot[data-item="coins"]').click();
    assert.equal(await a.locator("#slot-menu button", { hasText: "Offer" }).count(), 0);
    assert.equal(await coinsOf(a), aCoins);
    await wa.context.close();
    await wb.context.close();
    pages.length = 0;
  });

  it("shows a right-click menu opened during a trade above the trade window", async () => {
    const { a, cAt } = await tradingWithBystander(36);
    await clickTile(a, await standingStill(a), cAt, "right");
    const button = a.locator("#context-menu button", { hasText: "Trade with" });
    await button.waitFor();
    const onTop = await button.evaluate((node) => {
      const r = node.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return { inMenu: node.contains(hit), hit: hit?.closest("[id]")?.id ?? hit?.tagName };
    });
    assert.ok(onTop.inMenu, `the menu's options are under #${onTop.hit}`);
    await screenshot(a, "trade-context-menu");
    await closeAll();
  });

  it("drops a trade request the server refused during a trade, rather than showing it pending for good", async () => {
    const { a, cAt } = await tradingWithBystander(40);
    await clickTile(a, await standingStill(a), cAt, "right");
    // Its left edge, left of the trade window: this test does not rest on the menu being on top.
    await a.locator("#context-menu button", { hasText: "Trade with" }).click({ position: { x: 8, y: 8 } });
    await a.locator(".trade-error", { hasText: "already trading" }).waitFor();
    await a.locator(".trade-window button", { hasText: "Decline" }).click();
    await a.locator(".trade-result", { hasText: "The trade was cancelled." }).waitFor();
    await a.locator(".trade-result button", { hasText: "Close" }).click();
    await a.waitForTimeout(500);
    const left = (await a.locator("#trade").isVisible())
      ? ((await a.locator("#trade").textContent()) ?? "")
      : "";
    assert.doesNotMatch(left, /Sending a trade request/, `the refused request is still shown: "${left}"`);
    await closeAll();
  });

  it("takes an offered item back with its Remove button, from the keyboard", async () => {
    const [a, b] = await twoPlayers(52);
    await startTrade(a, b);
    await a
      .locator(".offer-picker li", { hasText: "Bronze axe" })
      .locator("button", { hasText: "Offer" })
      .click();
    await b.locator(".side.theirs li", { hasText: "Bronze axe" }).waitFor();
    await screenshot(a, "trade-remove-button");
    await a
      .locator(".side.mine li", { hasText: "Bronze axe" })
      .locator("button", { hasText: "Remove" })
      .focus();
    await a.keyboard.press("Enter");
    await b.locator(".side.theirs .empty").waitFor();
    // A's page shows it from its own copy of the update, which may come a moment after B's.
    await a.locator(".side.mine .empty").waitFor();
    assert.equal(await a.locator(".side.mine li").count(), 0, "A's offer is empty again");
    await a.locator(".trade-window button", { hasText: "Decline" }).click();
    await b.locator(".trade-result", { hasText: "The trade was cancelled." }).waitFor();
    await closeAll();
  });
});
