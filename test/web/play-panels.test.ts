// One player on the play page: equipment, the bank, full inventories, chat while disconnected.
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import type { TestServer } from "../support/server.js";
import { identitiesAcrossTheHour, openPage } from "./browser.js";
import {
  becomeAdmin,
  clickTile,
  openClient,
  openCuttable,
  playPageSuite,
  say,
  slotMenu,
  standingStill,
  teleport,
  walkTo,
} from "./play-helpers.js";

const BANK_BOOTH = { x: 30, z: 26 };

describe("the play page: one player's panels", function () {
  this.timeout(120000);
  const suite = playPageSuite(150);
  const { pages } = suite;
  let server: TestServer;
  let browser: Browser;
  before(() => {
    server = suite.server();
    browser = suite.browser();
  });

  it("shows worn gloves, boots and an amulet in the equipment panel's own slots", async () => {
    const w = await openClient(browser, server);
    pages.push(w);
    const { page } = w;
    await becomeAdmin(page);
    await say(page, "/give leather_gloves 1");
    await page.locator('#inventory .slot[data-item="leather_gloves"]').waitFor();
    await page.locator('#tabs button[data-tab="equipment"]').click();
    const before = await page.locator("#equipment .equip-slot").count();
    await slotMenu(page, "leather_gloves", "Equip Leather gloves");
    await page.locator('#tabs button[data-tab="equipment"]').click();
    await page.locator("#equipment .equip-slot.full", { hasText: "Leather gloves" }).waitFor();
    const slots = await page.locator("#equipment .equip-slot .slot-name").allTextContents();
    assert.equal(
      await page.locator("#equipment .equip-slot").count(),
      before,
      `no new slot appears for the gloves next to an empty "Gloves" one: ${slots.join(", ")}`,
    );
    await w.context.close();
  });

  it("closes the bank when the player walks away from it, rather than offering deposits it refuses", async () => {
    const w = await openClient(browser, server);
    pages.push(w);
    const { page } = w;
    await becomeAdmin(page);
    const at = await teleport(page, { x: 31, z: 27 });
    await clickTile(page, at, BANK_BOOTH);
    await page.locator("#bank-hint", { hasText: "Click an item to withdraw it" }).waitFor();
    // Walk 8 tiles away.
    await walkTo(page, at, { x: 31, z: 35 });
    await page.locator("#position", { hasText: "(31, 35)" }).waitFor();
    await standingStill(page);
    await page.locator('#tabs button[data-tab="inventory"]').click();
    await page.locator('#inventory .slot[data-item="shrimps"]').first().click();
    const offered = await page.locator("#slot-menu button").allTextContents();
    if (offered.some((label) => label.startsWith("Deposit"))) {
      await page.locator("#slot-menu button", { hasText: "Deposit Shrimps" }).first().click();
      await page.locator("#chat-log li.error").first().waitFor();
      const said = await page.locator("#chat-log li.error").first().textContent();
      assert.fail(
        `8 tiles from the bank, the inventory still offers "Deposit", and it is refused: "${said}"`,
      );
    }
    await w.context.close();
  });

  it("renews its sign-in while open, so a later connection comes back as the same player", async () => {
    const watched = await openPage(browser);
    pages.push(watched);
    const { page } = watched;
    await page.clock.install();
    await page.goto(`${server.baseUrl}/play`);
    await page.locator('#status[data-status="online"]').waitFor();
    // 56 minutes on (tokens last an hour), the page renews its token for the same identity.
    const [before, after] = await identitiesAcrossTheHour(page, 61000);
    assert.equal(after, before, "the same identity");
    await watched.context.close();
  });

  it("keeps a chat line typed while the connection is down instead of dropping it", async () => {
    const { watched, page, connections } = await openCuttable(browser, server);
    pages.push(watched);
    // The server goes away for a while: the page reconnects, and may take a while to.
    await page.routeWebSocket(/\/ws/, (route) => route.close({ code: 1011 }));
    await connections[0]!.close({ code: 4001, reason: "cut by the test" });
    await page.locator('#status[data-status="reconnecting"]').waitFor();
    await say(page, "hello there");
    await page.locator("#notice", { hasText: "Not connected" }).waitFor();
    assert.equal(
      await page.locator("#chat-input").inputValue(),
      "hello there",
      "the unsent line is still in the input",
    );
    await watched.context.close();
  });
});
