// The play page's prayer tab, the skills' way to their next level, the action key, and the map dimmed
// while the page reconnects.
import assert from "node:assert/strict";
import { WorldMap } from "../../src/game/map.js";
import type { Tile } from "../../src/game/types.js";
import { MAX_LEVEL, xpForLevel } from "../../src/game/xp.js";
import { screenshot } from "./browser.js";
import {
  becomeAdmin,
  clickTile,
  nameOf,
  openClient,
  openCuttable,
  playPageSuite,
  say,
  slotMenu,
  standingStill,
  teleport,
} from "./play-helpers.js";

const BANK_BOOTH = { x: 30, z: 26 };

describe("the play page: prayers, levels to come, the action key, reconnecting, ignoring", function () {
  this.timeout(120000);
  // Slower ticks than the other play suites: a prayer point lasts 5 s rather than 3.
  const suite = playPageSuite(250);
  const { pages } = suite;
  it("switches a prayer on and off by click and by keyboard, shows the points drain, and greys those above the level", async () => {
    const w = await openClient(suite.browser, suite.server);
    pages.push(w);
    const { page } = w;
    await page.locator('#tabs button[data-tab="prayer"]').click();
    const barkSkin = page.locator('#prayers .prayer[data-prayer="bark_skin"]');
    const emberStrength = page.locator('#prayers .prayer[data-prayer="ember_strength"]');
    assert.match((await barkSkin.textContent()) ?? "", /Bark Skin.*Level 1.*\+5% Defence.*drains 5 points/);
    assert.equal(await page.locator("#prayer-points").textContent(), "1 / 1", "a new character's point");
    // Above the level: greyed, saying why, and not switchable.
    assert.ok(await emberStrength.isDisabled(), "Ember Strength (level 4) cannot be switched on");
    assert.match((await emberStrength.textContent()) ?? "", /Needs prayer level 4 \(yours is 1\)/);

    await barkSkin.click();
    await page.locator('#prayers .prayer.active[data-prayer="bark_skin"]').waitFor();
    assert.equal(await barkSkin.getAttribute("aria-pressed"), "true");
    // Off from the keyboard: the button keeps the focus as the server's answer redraws the tab.
    await barkSkin.focus();
    await page.keyboard.press("Enter");
    await page.locator('#prayers .prayer[data-prayer="bark_skin"]:not(.active)').waitFor();
    assert.equal(await barkSkin.getAttribute("aria-pressed"), "false");
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-prayer")), "bark_skin");

    // On again, it drains the point: the server switches it off and says why.
    await page.keyboard.press("Space");
    await page.locator('#prayers .prayer.active[data-prayer="bark_skin"]').waitFor();
    await screenshot(page, "play-prayer-on");
    await page.locator("#prayer-points", { hasText: "0 / 1" }).waitFor({ timeout: 15000 });
    await page.locator('#prayers .prayer[data-prayer="bark_skin"]:not(.active)').waitFor();
    assert.equal(await page.locator("#prayer-text").textContent(), "0", "the top bar's prayer meter");
    await page.locator("#chat-log li.error", { hasText: "You have run out of prayer points." }).waitFor();
    // With none left, the server refuses it; the page says so as it says other refusals.
    await barkSkin.click();
    await page.locator("#chat-log li.error", { hasText: "You have no prayer points left" }).waitFor();
    await page.locator("#notice", { hasText: "You have no prayer points left" }).waitFor();
    assert.equal(await barkSkin.getAttribute("aria-pressed"), "false");
    await w.context.close();
  });

  it("shows each skill's XP still needed to its next level, as RuneScape's table has it", async () => {
    const w = await openClient(suite.browser, suite.server);
    pages.push(w);
    const { page } = w;
    // The page's table is the server's, level by level.
    // The module's path passed in as a plain string, so that tsc does not look for its types.
    const pageTable = await page.evaluate(
      async ({ path, max }) => {
        const xp = await import(path);
        return Array.from({ length: max }, (_, i) => xp.xpForLevel(i + 1));
      },
      { path: "/web/xp.js", max: MAX_LEVEL },
    );
    assert.deepEqual(
      pageTable,
      Array.from({ length: MAX_LEVEL }, (_, i) => xpForLevel(i + 1)),
    );

    await page.locator('#tabs button[data-tab="skills"]').click();
    const row = (skill: string) => page.locator(`#skills .skill[data-skill="${skill}"]`);
    const toConstitution11 = (xpForLevel(11) - xpForLevel(10)).toLocaleString("en");
    assert.equal(
      await row("constitution").locator(".skill-to-go").textContent(),
      `${toConstitution11} to go`,
    );
    assert.match((await row("constitution").getAttribute("title")) ?? "", /204 XP to level 11/);
    assert.equal(await row("prayer").locator(".skill-to-go").textContent(), "83 to go");

    // Bones buried: 4.5 prayer XP, 78.5 still to go, shown rounded up, the bar moved on.
    await becomeAdmin(page);
    await say(page, "/give bones 1");
    await page.locator('#inventory .slot[data-item="bones"]').waitFor({ state: "attached" });
    await slotMenu(page, "bones", "Bury Bones");
    await page.locator('#tabs button[data-tab="skills"]').click();
    await row("prayer").locator(".skill-to-go", { hasText: "79 to go" }).waitFor();
    assert.match((await row("prayer").getAttribute("title")) ?? "", /Prayer: 4 XP; 79 XP to level 2/);
    const barShare = await row("prayer")
      .locator(".skill-progress-fill")
      .evaluate(
        (fill) => fill.getBoundingClientRect().width / fill.parentElement!.getBoundingClientRect().width,
      );
    assert.ok(Math.abs(barShare - 4.5 / 83) < 0.01, `the bar is ${barShare} of the way`);
    await screenshot(page, "play-skills-to-go");
    await w.context.close();
  });

  it("acts on what the player faces with the keyboard alone: Space chops a tree, Enter opens a bank booth", async () => {
    const w = await openClient(suite.browser, suite.server);
    pages.push(w);
    const { page } = w;
    const tree = nearestTreeWithRoomWest();
    await becomeAdmin(page);
    await teleport(page, { x: tree.x - 2, z: tree.z });
    await page.locator("#chat-input").blur();
    // A step east: the player stands by the tree, facing it.
    await page.keyboard.press("ArrowRight");
    await page.locator("#position", { hasText: `(${tree.x - 1}, ${tree.z})` }).waitFor();
    await page.locator("#key-hint", { hasText: "Space: Chop Tree" }).waitFor();
    await screenshot(page, "play-key-hint");
    await page.keyboard.press("Space");
    await page.locator('#inventory .slot[data-item="logs"]').waitFor({ timeout: 30000 });

    // The booth north of the player, the map focused: Enter opens the bank.
    await teleport(page, { x: BANK_BOOTH.x, z: BANK_BOOTH.z + 2 });
    await page.locator("#map").focus();
    await page.keyboard.press("w");
    await page.locator("#position", { hasText: `(${BANK_BOOTH.x}, ${BANK_BOOTH.z + 1})` }).waitFor();
    await standingStill(page);
    await page.keyboard.press("Enter");
    await page.locator("#bank-hint", { hasText: "Click an item to withdraw it" }).waitFor();
    assert.ok(await page.locator("#tab-bank").isVisible(), "the bank tab is shown");
    await w.context.close();
  });

  it("dims the map and says why while the page reconnects, and clears once it is back", async () => {
    const { watched, page, connections } = await openCuttable(suite.browser, suite.server);
    pages.push(watched);
    const overlay = page.locator("#reconnecting");
    assert.ok(await overlay.isHidden(), "no overlay while online");
    // The server refuses the page's tries for a while, then takes it back.
    let refusing = true;
    await page.routeWebSocket(/\/ws/, (route) => {
      if (refusing) route.close({ code: 1011 });
      else route.connectToServer();
    });
    await connections[0]!.close({ code: 4001, reason: "cut by the test" });
    await overlay.waitFor({ state: "visible" });
    assert.match((await overlay.textContent()) ?? "", /reconnecting…/);
    const [over, map] = await Promise.all([overlay.boundingBox(), page.locator("#map").boundingBox()]);
    assert.deepEqual(over, map, "the overlay covers the whole map");
    await screenshot(page, "play-reconnecting");
    refusing = false;
    await page.locator('#status[data-status="online"]').waitFor({ timeout: 30000 });
    await overlay.waitFor({ state: "hidden" });
    await watched.context.close();
  });

  /** A tree of the starting area, nearest its spawn point, with two open tiles west of it. */
  it("hides an ignored player's chat in this browser, across a reload, until unignored", async () => {
    const [a, b] = await Promise.all([
      openClient(suite.browser, suite.server),
      openClient(suite.browser, suite.server),
    ]);
    pages.push(a, b);
    await Promise.all([becomeAdmin(a.page), becomeAdmin(b.page)]);
    const aAt = await teleport(a.page, { x: 60, z: 12 });
    const bAt = await teleport(b.page, { x: 61, z: 12 });
    const bName = await nameOf(b.page);
    const heard = (text: string) => a.page.locator("#chat-log li", { hasText: text });
    /** B says `line`, then A a line of its own: once A has its own back, B's came before it or never. */
    const bSays = async (line: string) => {
      await say(b.page, line);
      await b.page.locator("#chat-log li", { hasText: line }).waitFor();
      const mark = `mark ${Math.random().toString(36).slice(2, 8)}`;
      await say(a.page, mark);
      await heard(mark).waitFor();
    };
    await bSays("first line");
    assert.equal(await heard("first line").count(), 1);

    await clickTile(a.page, aAt, bAt, "right");
    await a.page.locator("#context-menu button", { hasText: `Ignore ${bName}` }).click();
    await heard(`You ignore ${bName}`).waitFor();
    await bSays("second line");
    assert.equal(await heard("second line").count(), 0, "an ignored player's line is not shown");

    await a.page.reload();
    await a.page.locator('#status[data-status="online"]').waitFor();
    await bSays("third line");
    assert.equal(await heard("third line").count(), 0, "still ignored after a reload");

    const here = await standingStill(a.page);
    await clickTile(a.page, here, bAt, "right");
    await a.page.locator("#context-menu button", { hasText: `Unignore ${bName}` }).click();
    await bSays("fourth line");
    assert.equal(await heard("fourth line").count(), 1);
  });

  function nearestTreeWithRoomWest(): Tile {
    const data = suite.server.runtime.gameData;
    const walls = new WorldMap(data.areas, data);
    const area = data.areas.find((candidate) => candidate.id === data.startingAreaId)!;
    const from = area.spawnPoint;
    const distance = (tile: Tile) => Math.abs(tile.x - from.x) + Math.abs(tile.z - from.z);
    const tree = area.resources
      .filter((placed) => placed.resourceId === "tree")
      .filter(
        (placed) => walls.isWalkable(placed.x - 1, placed.z) && walls.isWalkable(placed.x - 2, placed.z),
      )
      .sort((a, b) => distance(a) - distance(b))[0];
    assert.ok(tree, "a tree with room west of it");
    return { x: tree.x, z: tree.z };
  }
});
