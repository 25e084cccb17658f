import assert from "node:assert/strict";
import type { Page, WebSocketRoute } from "playwright-core";
import { GENEROUS_LIMITS } from "../api/support.js";
import { waitForAsync } from "../support/players.js";
import { listWorlds } from "../support/server.js";
import { connectNewPlayer, type WsPlayer } from "../support/ws-client.js";
import { browserSuite, openPage, screenshot, type WatchedPage } from "./browser.js";
import {
  clickTile,
  coinsOf,
  hoverTile,
  openClient,
  openCuttable,
  slotMenu,
  standingStill,
} from "./play-helpers.js";

/** Cuts the page's first connection as a network failure would, and waits for the one that replaces it. */
async function cutConnection(page: Page, connections: WebSocketRoute[]): Promise<void> {
  await connections[0]!.close({ code: 4001, reason: "cut by the test" });
  await page.locator('#status[data-status="reconnecting"]').waitFor();
  await page.locator('#status[data-status="online"]').waitFor({ timeout: 30000 });
  assert.equal(connections.length, 2, "one new connection");
}

describe("the web pages in a browser: landing page and client", function () {
  this.timeout(120000);
  let wsPlayer: WsPlayer | undefined;
  let chopper: WatchedPage;
  // Registered first, so that it runs before the suite's server stops.
  after(() => wsPlayer?.client.socket.close(1000));
  const suite = browserSuite({ ...GENEROUS_LIMITS, WORLD_TICK_MS: "150" });
  const { pages } = suite;
  it("shows the number of players online on the landing page", async () => {
    wsPlayer = await connectNewPlayer(suite.server);
    const landing = await openPage(suite.browser);
    pages.push(landing);
    await landing.page.goto(`${suite.server.baseUrl}/`);
    await landing.page.locator("#players-online[data-count]").waitFor();
    assert.equal(await landing.page.locator("#players-online").textContent(), "1");
    assert.equal(await landing.page.locator("#players-label").textContent(), "player online");
    assert.ok(await landing.page.locator('a[href="/play"]').isVisible());
    assert.ok(await landing.page.locator('a[href="/dashboard"]').isVisible());
    await screenshot(landing.page, "landing");
    await landing.context.close();
  });

  it("walks where the player clicks, chops a tree, shows the XP drop and the logs in the inventory", async () => {
    chopper = await openClient(suite.browser, suite.server);
    pages.push(chopper);
    const { page } = chopper;
    const start = await standingStill(page);
    const area = suite.server.runtime.gameData.areas[0]!;
    assert.deepEqual(start, area.spawnPoint, "a new character starts at the spawn point");

    // A tile no NPC wanders onto: a click on a chicken there would attack it instead.
    const stop = { x: start.x - 2, z: start.z - 2 };
    await clickTile(page, start, stop);
    await page.locator("#position", { hasText: `(${stop.x}, ${stop.z})` }).waitFor();
    const here = await standingStill(page);
    assert.deepEqual(here, stop);

    const trees = area.resources.filter((placed) => placed.resourceId === "tree");
    const tree = trees.sort(
      (a, b) =>
        Math.max(Math.abs(a.x - here.x), Math.abs(a.z - here.z)) -
        Math.max(Math.abs(b.x - here.x), Math.abs(b.z - here.z)),
    )[0]!;
    // Over the tree, the corner says what a click does and that a right click offers more.
    await hoverTile(page, here, tree);
    await page.locator("#hover", { hasText: /^Chop Tree \/ 1 more option$/ }).waitFor();
    // Off the map it names nothing, rather than the tree the mouse left.
    await page.locator("#chat-input").hover();
    await page.waitForFunction(() => document.getElementById("hover")!.textContent === "");
    await clickTile(page, here, tree);
    await page.locator(".xp-drop", { hasText: "Woodcutting XP" }).waitFor({ timeout: 60000 });
    await page.locator('#inventory .slot[data-item="logs"]').waitFor();
    await screenshot(page, "client-chopped");
    await page.locator('#tabs button[data-tab="skills"]').click();
    const xp = await page.locator('.skill[data-skill="woodcutting"] .skill-xp').textContent();
    assert.match(xp ?? "", /^25 xp$/);
  });

  it("trades coins between two pages through the trade window, both seeing the result", async () => {
    const trader = await openClient(suite.browser, suite.server);
    pages.push(trader);
    const a = chopper.page;
    const b = trader.page;
    const aName = (await a.locator("#player-name").textContent()) ?? "";
    const aCoins = await coinsOf(a);
    const bCoins = await coinsOf(b);
    const aAt = await standingStill(a);
    const bAt = await standingStill(b);

    await clickTile(b, bAt, aAt, "right");
    await b.locator("#context-menu button", { hasText: `Trade with ${aName}` }).click();
    await b.locator(".trade-request", { hasText: "Sending a trade request" }).waitFor();
    await a
      .locator(".trade-request", { hasText: "wishes to trade with you" })
      .locator("button", { hasText: "Accept" })
      .click();
    await a.locator(".trade-window").waitFor();
    await b.locator(".trade-window").waitFor();

    const coinsRow = a.locator(".offer-picker li", { hasText: "Coins" });
    await coinsRow.locator("input").fill("10");
    await coinsRow.locator("button", { hasText: "Offer" }).click();
    await b.locator(".side.theirs li", { hasText: "Coins × 10" }).waitFor();
    await a.locator(".side.mine li", { hasText: "Coins × 10" }).waitFor();
    // "Offer all" from the inventory adds what is left of the stack to what the offer holds of it.
    await slotMenu(a, "coins", "Offer all Coins");
    await b.locator(".side.theirs li", { hasText: `Coins × ${aCoins}` }).waitFor();
    assert.equal(await a.locator(".trade-error").count(), 0, "offering the rest of the stack is not refused");

    await a.locator(".trade-window button", { hasText: "Accept" }).click();
    await b.locator(".trade-status", { hasText: "The other player has accepted." }).waitFor();
    await b.locator(".trade-window button", { hasText: "Accept" }).click();
    await a.locator(".trade-window h3", { hasText: "Confirm the trade" }).waitFor();
    await b.locator(".side.theirs h4", { hasText: `You receive (value ${aCoins} coins)` }).waitFor();
    await a.locator(".side.mine h4", { hasText: `You give (value ${aCoins} coins)` }).waitFor();
    await screenshot(b, "client-trade-confirm");

    // One side's accept on the confirm screen leaves both on it, the other told who has accepted.
    await a.locator(".trade-window button", { hasText: "Accept" }).click();
    await b.locator(".trade-status", { hasText: "The other player has accepted." }).waitFor();
    await a.locator(".trade-status", { hasText: "Waiting for the other player…" }).waitFor();
    assert.match((await b.locator(".trade-window h3").textContent()) ?? "", /^Confirm the trade/);
    assert.match((await a.locator(".trade-window h3").textContent()) ?? "", /^Confirm the trade/);
    assert.equal(await b.locator(".offer-picker").count(), 0, "nothing can be offered on the confirm screen");
    await b.locator(".trade-window button", { hasText: "Accept" }).click();
    await b.locator(".trade-result.completed", { hasText: `You received Coins × ${aCoins}.` }).waitFor();
    await a.locator(".trade-result.completed", { hasText: "You received nothing." }).waitFor();
    await a.locator('#tabs button[data-tab="inventory"]').click();
    await b.locator("#coins", { hasText: String(bCoins + aCoins) }).waitFor();
    await a.locator("#coins", { hasText: /^0$/ }).waitFor();
    await screenshot(a, "client-trade-completed");
  });

  it("comes back as the same character after its connection drops", async () => {
    const { watched, page, connections } = await openCuttable(suite.browser, suite.server, "/play");
    pages.push(watched);
    await page.locator("#position", { hasText: "(" }).waitFor();
    const name = await page.locator("#player-name").textContent();

    await cutConnection(page, connections);
    await page.locator("#position", { hasText: "(" }).waitFor();
    assert.equal(await page.locator("#player-name").textContent(), name, "the same character");
    await page.locator("#inventory .slot.full").first().waitFor();
    assert.equal(await page.locator("#world").isVisible(), false, "no world picker where there is one world");
    await watched.context.close();
  });
});

describe("the web pages in a browser: numbered worlds (WORLDS=2)", function () {
  this.timeout(120000);
  const suite = browserSuite({ ...GENEROUS_LIMITS, WORLDS: "2", WORLD_TICK_MS: "150" });
  const { pages } = suite;
  /** How many play in each world, world 1 first, as the REST API says. */
  const playersByWorld = async (): Promise<number[]> => {
    const worlds = await listWorlds(suite.server);
    return worlds.map((world: { playersOnline: number }) => world.playersOnline);
  };

  it("lists the worlds on the landing page, each with a link to play there", async () => {
    const landing = await openPage(suite.browser);
    pages.push(landing);
    await landing.page.goto(`${suite.server.baseUrl}/`);
    await landing.page.locator("#worlds li").nth(1).waitFor();
    assert.deepEqual(await landing.page.locator("#worlds .world-name").allTextContents(), [
      "World 1",
      "World 2",
    ]);
    assert.ok(await landing.page.locator('#worlds a[href="/play?world=2"]').isVisible());
    await landing.context.close();
  });

  it("plays in the world its link names, hops from the picker, and reconnects to the world it hopped to", async () => {
    const { watched, page, connections } = await openCuttable(suite.browser, suite.server, "/play?world=2");
    pages.push(watched);
    await page.locator("#world", { hasText: "World 2" }).waitFor();
    await waitForAsync(async () => (await playersByWorld()).join() === "0,1", "the player in world 2");

    await page.locator("#world").click();
    await page.locator('#world-list button[data-world="2"]:disabled').waitFor();
    await screenshot(page, "world-picker");
    await page.locator('#world-list button[data-world="1"]').click();
    await page.locator("#world", { hasText: "World 1" }).waitFor();
    await page.locator("#chat-log li", { hasText: "You moved to world 1." }).waitFor();
    await waitForAsync(async () => (await playersByWorld()).join() === "1,0", "the player in world 1");
    await page.locator("#position", { hasText: "(" }).waitFor();

    await cutConnection(page, connections);
    assert.equal(
      new URL(connections[1]!.url()).searchParams.get("world"),
      "1",
      "back to the world hopped to",
    );
    await page.locator("#inventory .slot.full").first().waitFor();
    assert.equal(await page.locator("#world").textContent(), "World 1");
    assert.deepEqual(await playersByWorld(), [1, 0]);
    await watched.context.close();
  });

  it("plays in the least full world, saying so, when its link names no world there", async () => {
    const watched = await openPage(suite.browser);
    pages.push(watched);
    const { page } = watched;
    await page.goto(`${suite.server.baseUrl}/play?world=9`);
    await page.locator('#status[data-status="online"]').waitFor();
    await page.locator("#chat-log li", { hasText: "There is no world 9 here" }).waitFor();
    await page.locator("#world", { hasText: /^World [12]$/ }).waitFor();
    await watched.context.close();
  });
});
