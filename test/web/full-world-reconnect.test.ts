// The play client in a world that filled up while its connection was down: a refused reconnection has
// it look at the worlds again, and leave the full one for the least full (as at page load, linkedWorld
// in web/play.js), rather than retry the full one forever.
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { GENEROUS_LIMITS } from "../api/support.js";
import { waitForAsync } from "../support/players.js";
import { listWorlds, startTestServer, type TestServer } from "../support/server.js";
import { connectPlayer, type WsPlayer } from "../support/ws-client.js";
import { launchChromium, openPage, skipWithoutChromium } from "../web/browser.js";

/**
 * Wraps the page's WebSocket: while `window.__block` is set, a new socket goes to a closed port (the
 * network is down, as far as the page can tell); every socket the page opens is kept in `__sockets`.
 */
const CONTROLLABLE_SOCKETS = `
  (() => {
    const Real = window.WebSocket;
    window.__block = false;
    window.__sockets = [];
    window.__urls = [];
    window.WebSocket = class extends Real {
      constructor(url, protocols) {
        window.__urls.push(String(url));
        super(window.__block ? "ws://127.0.0.1:9/blocked" : url, protocols);
        window.__sockets.push(this);
      }
    };
  })();
`;

describe("the play client when its world filled up during a drop", function () {
  this.timeout(120000);
  let server: TestServer;
  let browser: Browser;
  let other: WsPlayer | undefined;

  before(async function () {
    skipWithoutChromium(this);
    server = await startTestServer({
      ...GENEROUS_LIMITS,
      WORLDS: "2",
      WORLD_CAPACITY: "1",
      RECONNECT_SECONDS: "0",
      WORLD_TICK_MS: "150",
    });
    browser = await launchChromium();
  });
  after(async () => {
    other?.client.socket.close(1000);
    await browser?.close();
    await server?.stop();
  });

  const playersByWorld = async (): Promise<number[]> => {
    const worlds = await listWorlds(server);
    return worlds.map((world: { playersOnline: number }) => world.playersOnline);
  };

  it("gets back into a world with room, and says why", async () => {
    const { page, context } = await openPage(browser);
    await context.addInitScript({ content: CONTROLLABLE_SOCKETS });
    await page.goto(`${server.baseUrl}/play?world=2`);
    await page.locator('#status[data-status="online"]').waitFor();
    await page.locator("#inventory .slot.full").first().waitFor();
    await waitForAsync(async () => (await playersByWorld()).join() === "0,1", "the page's player in world 2");

    // The network goes down: the connection drops and the page's attempts fail meanwhile.
    await page.evaluate("window.__block = true; window.__sockets.at(-1).close(4999)");
    await waitForAsync(async () => (await playersByWorld()).join() === "0,0", "the seat given up");
    // Someone else takes world 2's only place; world 1 stays empty.
    other = await connectPlayer(server, 2);
    assert.deepEqual(await playersByWorld(), [0, 1]);

    // The network comes back.
    await page.evaluate("window.__block = false");
    await page.locator('#status[data-status="online"]').waitFor({ timeout: 20000 });
    await waitForAsync(async () => (await playersByWorld()).join() === "1,1", "the page's player in world 1");
    const said = (await page.locator("#chat-log").textContent()) ?? "";
    await context.close();
    assert.match(said, /World 2 is full: you play in the least full world/);
  });
});
