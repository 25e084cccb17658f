// Helpers of the play page's tests: pages signed in as new players, driven through the UI only.
import assert from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import type { Tile } from "../../src/game/types.js";
import { GENEROUS_LIMITS } from "../api/support.js";
import type { TestServer } from "../support/server.js";
import { type BrowserSuite, browserSuite, openPage, type WatchedPage } from "./browser.js";

export const ADMIN_CODE = "play-admin-code-123";
/** The client's tile size in CSS pixels (web/renderer.js). */
const TILE = 32;

export async function positionOf(page: Page): Promise<Tile> {
  const text = (await page.locator("#position").textContent()) ?? "";
  const match = /\((-?\d+), (-?\d+)\)/.exec(text);
  if (!match) throw new Error(`no position shown: "${text}"`);
  return { x: Number(match[1]), z: Number(match[2]) };
}

/** Waits for the player to stand still (the camera then centres on its tile) and says where. */
export async function standingStill(page: Page): Promise<Tile> {
  let last = "";
  let since = Date.now();
  const deadline = Date.now() + 20000;
  while (Date.now() < deadline) {
    const text = (await page.locator("#position").textContent()) ?? "";
    if (text !== last) {
      last = text;
      since = Date.now();
    } else if (text && Date.now() - since >= 800) return positionOf(page);
    await page.waitForTimeout(100);
  }
  throw new Error("the player did not stand still");
}

/** Clicks a tile of the map, the player standing still on `me` at the canvas's centre. */
export async function clickTile(page: Page, me: Tile, tile: Tile, button: "left" | "right" = "left") {
  const { x, y } = await pointAt(page, me, tile);
  await page.mouse.click(x, y, { button });
}

/** Moves the mouse over a tile of the map, the player standing still on `me`. */
export async function hoverTile(page: Page, me: Tile, tile: Tile) {
  const { x, y } = await pointAt(page, me, tile);
  await page.mouse.move(x, y);
}

/** The page point at a tile's centre, the player standing still on `me` at the canvas's centre. */
async function pointAt(page: Page, me: Tile, tile: Tile): Promise<{ x: number; y: number }> {
  const box = await page.locator("#map").boundingBox();
  assert.ok(box, "the map is on the page");
  return {
    x: box.x + box.width / 2 + (tile.x - me.x) * TILE,
    y: box.y + box.height / 2 + (tile.z - me.z) * TILE,
  };
}

/**
 * Walks to a tile through its menu's "Walk here": a left click there would attack, talk to or pick up
 * whatever NPC or item happens to be on it.
 */
export async function walkTo(page: Page, me: Tile, tile: Tile): Promise<void> {
  await clickTile(page, me, tile, "right");
  await page.locator("#context-menu button", { hasText: "Walk here" }).click();
}

export async function openClient(browser: Browser, server: TestServer): Promise<WatchedPage> {
  const watched = await openPage(browser);
  await watched.page.goto(`${server.baseUrl}/play`);
  await watched.page.locator('#status[data-status="online"]').waitFor();
  await watched.page.locator("#inventory .slot.full").first().waitFor();
  return watched;
}

/** Types a chat line and presses Enter. */
export async function say(page: Page, line: string) {
  await page.locator("#chat-input").fill(line);
  await page.locator("#chat-input").press("Enter");
}

export async function becomeAdmin(page: Page) {
  await say(page, `/admin ${ADMIN_CODE}`);
  await page.waitForTimeout(300);
}

/** /tp there, then waits to stand still there. */
export async function teleport(page: Page, tile: Tile): Promise<Tile> {
  await say(page, `/tp ${tile.x} ${tile.z}`);
  await page
    .locator("#position", { hasText: `(${tile.x}, ${tile.z})` })
    .waitFor({ timeout: 10000 })
    .catch(async (error) => {
      const chat = await page.locator("#chat-log").allTextContents();
      throw new Error(
        `${error.message}; at ${await page.locator("#position").textContent()}; chat: ${chat.join(" / ")}`,
      );
    });
  return standingStill(page);
}

/** Clicks an inventory slot holding `itemId` and picks `label` from its menu. */
export async function slotMenu(page: Page, itemId: string, label: string | RegExp) {
  await page.locator('#tabs button[data-tab="inventory"]').click();
  await page.locator(`#inventory .slot[data-item="${itemId}"]`).first().click();
  await page.locator("#slot-menu button", { hasText: label }).first().click();
}

export const coinsOf = async (page: Page) =>
  Number((await page.locator("#coins").textContent())?.replace(/\D/g, ""));

export const nameOf = async (page: Page) => (await page.locator("#player-name").textContent()) ?? "";

/** B asks A to trade (right-click on A, "Trade with"), A accepts: both see the trade window. */
export async function startTrade(a: Page, b: Page) {
  const aName = await nameOf(a);
  const aAt = await standingStill(a);
  const bAt = await standingStill(b);
  await clickTile(b, bAt, aAt, "right");
  await b.locator("#context-menu button", { hasText: `Trade with ${aName}` }).click();
  await a
    .locator(".trade-request", { hasText: "wishes to trade with you" })
    .locator("button", { hasText: "Accept" })
    .click();
  await a.locator(".trade-window").waitFor();
  await b.locator(".trade-window").waitFor();
}

/**
 * A client page whose /ws connections go through the test, so that it can cut one; online once this
 * resolves.
 */
export async function openCuttable(browser: Browser, server: TestServer, path = "/play") {
  const watched = await openPage(browser);
  const { page } = watched;
  const connections: import("playwright-core").WebSocketRoute[] = [];
  await page.routeWebSocket(/\/ws/, (route) => {
    route.connectToServer();
    connections.push(route);
  });
  await page.goto(`${server.baseUrl}${path}`);
  await page.locator('#status[data-status="online"]').waitFor();
  await page.locator("#inventory .slot.full").first().waitFor();
  return { watched, page, connections };
}

/**
 * Mocha hooks of a play-page suite: a server (with ADMIN_CODE) and a browser for the suite, and every
 * page a test pushes onto `pages` checked for console errors after each test.
 */
export function playPageSuite(tickMs: number): BrowserSuite {
  return browserSuite({ ...GENEROUS_LIMITS, WORLD_TICK_MS: String(tickMs), ADMIN_CODE });
}
