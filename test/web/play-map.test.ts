// The play page's map as a player reads it: names of units standing together, items lying on the
// ground, and the skills tab's order. The canvas is read back pixel by pixel around known tiles.
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import type { Tile } from "../../src/game/types.js";
import { screenshot } from "./browser.js";
import {
  becomeAdmin,
  hoverTile,
  nameOf,
  openClient,
  playPageSuite,
  say,
  slotMenu,
  teleport,
} from "./play-helpers.js";

/** Quiet corners of the starting area: no tree, rock or wandering NPC near. */
const CROWD_SPOT = { x: 56, z: 8 };
const LOOT_SPOT = { x: 58, z: 16 };

/** A rectangle of the canvas in CSS pixels, from a tile's centre. */
interface Region {
  left: number;
  top: number;
  width: number;
  height: number;
}
type Rgb = [number, number, number];

/** Where a unit's name is drawn on its own line, just above its tile, and the lines above that. */
const nameLine = (rise: number): Region => ({ left: -50, top: -27 - rise * 14, width: 100, height: 12 });
/** A tile's corners and its left edge (a count of items), a unit standing in its middle. */
const BOTTOM_LEFT = { left: -16, top: 6, width: 10, height: 10 };
const BOTTOM_RIGHT = { left: 6, top: 6, width: 10, height: 10 };
const TOP_LEFT = { left: -16, top: -16, width: 10, height: 10 };
const LEFT_EDGE = { left: -16, top: -6, width: 8, height: 11 };

const isWhite = ([r, g, b]: Rgb) => r >= 225 && g >= 225 && b >= 225;
/** The player's own name (#ffe066). */
const isOwnYellow = ([r, g, b]: Rgb) => r >= 235 && g >= 200 && g <= 235 && b >= 70 && b <= 130;
/** The player's own unit (#ffd43b), others' being blue. */
const isOwnCircle = ([r, g, b]: Rgb) => r >= 240 && g >= 195 && g <= 230 && b <= 90;
const isGold = ([r, g, b]: Rgb) => r >= 220 && g >= 170 && g <= 215 && b <= 60;
const isLogBrown = ([r, g, b]: Rgb) =>
  Math.abs(r - 139) <= 20 && Math.abs(g - 90) <= 20 && Math.abs(b - 43) <= 20;
/** A count's digits, as the inventory draws a stack's size. */
const isCountYellow = ([r, g, b]: Rgb) => r >= 230 && g >= 230 && b <= 80;

/** The canvas's pixels in `region` around `tile`'s centre, the player standing still on `me`. */
async function pixels(page: Page, me: Tile, tile: Tile, region: Region): Promise<Rgb[]> {
  return page.evaluate(
    ({ dx, dz, region }) => {
      const canvas = document.getElementById("map") as HTMLCanvasElement;
      const ratio = canvas.width / canvas.getBoundingClientRect().width;
      const x = (canvas.width / ratio / 2 + dx * 32 + region.left) * ratio;
      const y = (canvas.height / ratio / 2 + dz * 32 + region.top) * ratio;
      const data = canvas
        .getContext("2d")!
        .getImageData(Math.round(x), Math.round(y), region.width * ratio, region.height * ratio).data;
      const out: [number, number, number][] = [];
      for (let i = 0; i < data.length; i += 4) out.push([data[i]!, data[i + 1]!, data[i + 2]!]);
      return out;
    },
    { dx: tile.x - me.x, dz: tile.z - me.z, region },
  );
}

const count = (found: Rgb[], test: (rgb: Rgb) => boolean) => found.filter(test).length;

/** Waits until the pixels of `region` pass `test`: the page draws the world a frame at a time. */
async function untilDrawn(
  page: Page,
  me: Tile,
  tile: Tile,
  region: Region,
  test: (found: Rgb[]) => boolean,
  what: string,
): Promise<void> {
  const deadline = Date.now() + 10000;
  while (!test(await pixels(page, me, tile, region))) {
    if (Date.now() > deadline) throw new Error(`not drawn: ${what}`);
    await page.waitForTimeout(100);
  }
}

describe("the play page's map: names, ground items and the skills tab", function () {
  this.timeout(120000);
  const suite = playPageSuite(150);
  const { pages } = suite;
  it("keeps the names of players on one tile and the next readable, stacked above the player's own", async () => {
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => openClient(suite.browser, suite.server)));
    pages.push(a!, b!, c!);
    for (const { page } of [a!, b!, c!]) await becomeAdmin(page);
    const here = await teleport(a!.page, CROWD_SPOT);
    // Alone: the player's own name on its line, nothing above.
    await untilDrawn(a!.page, here, here, nameLine(0), (found) => count(found, isOwnYellow) > 15, "own name");
    const alone = await pixels(a!.page, here, here, nameLine(0));

    // B comes onto the same tile: its name goes a line up, on both pages the own name stays put.
    await teleport(b!.page, CROWD_SPOT);
    await hoverTile(a!.page, here, here);
    await a!.page.locator("#hover", { hasText: `Trade with ${await nameOf(b!.page)}` }).waitFor();
    await a!.page.mouse.move(0, 0);
    // B's unit glides onto the tile from where A's page saw it last.
    await a!.page.waitForTimeout(500);
    for (const { page } of [a!, b!]) {
      await untilDrawn(
        page,
        here,
        here,
        nameLine(1),
        (found) => count(found, isWhite) > 15,
        "the other's name",
      );
      const ownLine = await pixels(page, here, here, nameLine(0));
      assert.ok(count(ownLine, isOwnYellow) > 15, "the player's own name is on its line");
      assert.equal(count(ownLine, isWhite), 0, "no other name is drawn over the player's own");
    }
    // The player's own unit too is drawn over the other's.
    const middle = await pixels(a!.page, here, here, { left: -2, top: -2, width: 4, height: 4 });
    assert.ok(middle.every(isOwnCircle), `the player's own unit is on top: ${middle[0]}`);
    const together = await pixels(a!.page, here, here, nameLine(0));
    const changed = together.filter((rgb, i) => rgb.some((value, j) => value !== alone[i]![j])).length;
    assert.equal(changed, 0, "the player's own name reads as when alone");

    // C on the next tile east: its name, which would cover both, goes up past them.
    const east = { x: CROWD_SPOT.x + 1, z: CROWD_SPOT.z };
    await teleport(c!.page, east);
    await untilDrawn(
      a!.page,
      here,
      east,
      nameLine(2),
      (found) => count(found, isWhite) > 15,
      "C's name, 2 up",
    );
    assert.equal(count(await pixels(a!.page, here, here, nameLine(0)), isWhite), 0, "A's line stays clear");
    await screenshot(a!.page, "play-map-names");
    await Promise.all([a!, b!, c!].map(({ context }) => context.close()));
  });

  it("draws the items on a tile by kind in its corners, with their count, under the player standing there", async () => {
    const w = await openClient(suite.browser, suite.server);
    pages.push(w);
    const { page } = w;
    await becomeAdmin(page);
    await say(page, "/give bones 1");
    await page.locator('#inventory .slot[data-item="bones"]').waitFor();
    await say(page, "/give logs 1");
    await page.locator('#inventory .slot[data-item="logs"]').waitFor();
    const here = await teleport(page, LOOT_SPOT);
    for (const corner of [BOTTOM_LEFT, BOTTOM_RIGHT, TOP_LEFT])
      assert.equal(count(await pixels(page, here, here, corner), isWhite), 0, "nothing lies there yet");

    // Bones, alone: a white marker in the corner, beside the player standing on them.
    await slotMenu(page, "bones", "Drop Bones");
    await untilDrawn(page, here, here, BOTTOM_LEFT, (found) => count(found, isWhite) >= 8, "bones, white");
    assert.equal(count(await pixels(page, here, here, LEFT_EDGE), isCountYellow), 0, "no count for one item");

    // Logs are worth more: brown first, the bones next, and "2".
    await slotMenu(page, "logs", "Drop Logs");
    await untilDrawn(page, here, here, BOTTOM_LEFT, (found) => count(found, isLogBrown) >= 15, "logs, brown");
    assert.ok(count(await pixels(page, here, here, BOTTOM_RIGHT), isWhite) >= 8, "the bones beside them");
    await untilDrawn(page, here, here, LEFT_EDGE, (found) => count(found, isCountYellow) >= 5, "a count");

    // The starting 25 coins, worth more still: gold first.
    await slotMenu(page, "coins", "Drop Coins");
    await untilDrawn(page, here, here, BOTTOM_LEFT, (found) => count(found, isGold) >= 15, "coins, gold");
    assert.ok(count(await pixels(page, here, here, BOTTOM_RIGHT), isLogBrown) >= 15, "then the logs");
    assert.ok(count(await pixels(page, here, here, TOP_LEFT), isWhite) >= 8, "then the bones");
    await screenshot(page, "play-map-loot");

    // Over the tile, the hover line names all that lies there, not only what a click picks up.
    await hoverTile(page, here, here);
    await page
      .locator("#hover", {
        hasText: /^Pick up Coins \(25\) \/ 3 more options · On the ground: Coins \(25\), Logs, Bones$/,
      })
      .waitFor();
    await w.context.close();
  });

  it("lists Magic in the skills tab after Prayer, where RuneScape has it", async () => {
    const w = await openClient(suite.browser, suite.server);
    pages.push(w);
    const { page } = w;
    await page.locator('#tabs button[data-tab="skills"]').click();
    await page.locator('#skills .skill[data-skill="magic"]').waitFor();
    const order = await page
      .locator("#skills .skill")
      .evaluateAll((rows) => rows.map((row) => row.getAttribute("data-skill")));
    assert.deepEqual(order.slice(0, 7), [
      "attack",
      "strength",
      "defence",
      "ranged",
      "prayer",
      "magic",
      "constitution",
    ]);
    await w.context.close();
  });
});
