// The store window on the play page, with another player at the same counter.
import assert from "node:assert/strict";
import { becomeAdmin, clickTile, openClient, playPageSuite, teleport } from "./play-helpers.js";

const KEEPER = { x: 22, z: 30 };

describe("the play page: the store window", function () {
  this.timeout(120000);
  const suite = playPageSuite(150);
  const { pages } = suite;
  it("a store the player closed stays closed, and the tab stays put, when another player buys there", async () => {
    const a = await openClient(suite.browser, suite.server);
    const b = await openClient(suite.browser, suite.server);
    pages.push(a, b);
    await becomeAdmin(a.page);
    await becomeAdmin(b.page);
    const aAt = await teleport(a.page, { x: 23, z: 30 });
    const bAt = await teleport(b.page, { x: 21, z: 30 });

    // A opens the store by clicking the shopkeeper, then closes it and goes back to the inventory.
    await clickTile(a.page, aAt, KEEPER);
    await a.page.locator("#store li").first().waitFor();
    await a.page.locator("#store button", { hasText: "Close the store" }).click();
    await a.page.locator('#tabs button[data-tab="inventory"]').click();
    assert.equal(await a.page.locator("#store li").count(), 0);

    // B, at the same counter, buys some bread.
    await clickTile(b.page, bAt, KEEPER);
    await b.page
      .locator("#store .store-items li", { hasText: "Bread" })
      .getByRole("button", { name: "Buy", exact: true })
      .click();
    await b.page.locator('#inventory .slot[data-item="bread"]').waitFor({ state: "attached" });
    await a.page.waitForTimeout(1000);

    assert.equal(
      await a.page.locator('#tabs button[data-tab="inventory"]').getAttribute("class"),
      "active",
      "A's inventory tab stays shown",
    );
    assert.equal(await a.page.locator("#store li").count(), 0, "A's closed store stays closed");
  });
});
