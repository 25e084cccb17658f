// A death on the play page, during a trade, with the bank open.
import assert from "node:assert/strict";
import { becomeAdmin, clickTile, openClient, playPageSuite, startTrade, teleport } from "./play-helpers.js";

describe("the play page: dying", function () {
  this.timeout(180000);
  const suite = playPageSuite(100);
  const { pages } = suite;
  it("a player killed during a trade: both told, the victim's panels up to date", async () => {
    const a = await openClient(suite.browser, suite.server);
    const b = await openClient(suite.browser, suite.server);
    pages.push(a, b);
    await becomeAdmin(a.page);
    await becomeAdmin(b.page);
    const at = await teleport(a.page, { x: 31, z: 27 });
    await teleport(b.page, { x: 32, z: 27 });
    await clickTile(a.page, at, { x: 30, z: 26 });
    await a.page.locator("#bank-hint", { hasText: "Click an item to withdraw it" }).waitFor();
    await startTrade(a.page, b.page);
    await a.page
      .locator(".offer-picker li", { hasText: "Coins" })
      .locator("button", { hasText: "Offer" })
      .click();
    await b.page.locator(".side.theirs li", { hasText: "Coins" }).waitFor();
    // A walks into the spiders' den (teleported), and dies there.
    await teleport(a.page, { x: 153, z: 96 });
    await b.page.locator(".trade-result", { hasText: "a player died" }).waitFor({ timeout: 120000 });
    await a.page.locator(".trade-result", { hasText: "a player died" }).waitFor();
    await a.page.locator("#position", { hasText: "(132, 32)" }).waitFor();
    assert.equal(await a.page.locator("#health-text").textContent(), "10/10", "respawned with full health");
    // Far from any bank now, the bank panel still says it is open and the inventory offers deposits.
    assert.equal(
      await a.page.locator("#bank-hint").textContent(),
      "Click a bank booth or a banker to use the bank.",
      "the bank opened before the death is closed after it",
    );
  });
});
