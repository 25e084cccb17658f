// A browser that kept a token this server no longer accepts (JWT_SECRET rotated, the database that
// held the generated secret reset): the pages forget it and sign in afresh, rather than retry it forever
// (each refusal counting against the address's sign-in limit).
import assert from "node:assert/strict";
import type { Browser } from "playwright-core";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { GENEROUS_LIMITS } from "../api/support.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { launchChromium, openPage, skipWithoutChromium } from "../web/browser.js";

/** A well-formed anonymous token, valid for days, signed with a key this server does not hold. */
async function foreignToken(): Promise<{ token: string; expiresAt: string }> {
  const issued = await issueAnonymousToken(
    new TextEncoder().encode("a-secret-this-server-never-had-0123456789"),
  );
  return { token: issued.token, expiresAt: issued.expiresAt.toISOString() };
}

describe("the pages with a kept token the server refuses", function () {
  this.timeout(90000);
  let server: TestServer;
  let browser: Browser;

  before(async function () {
    skipWithoutChromium(this);
    server = await startTestServer({ ...GENEROUS_LIMITS, WORLD_TICK_MS: "150" });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** A page whose browser kept `kept` from an earlier visit (seeded once, not at each load). */
  const pageKeeping = async (kept: { token: string; expiresAt: string }) => {
    const { page, context } = await openPage(browser, [{ status: 401, url: /\/api\// }]);
    await context.addInitScript((value) => {
      if (!sessionStorage.getItem("seeded")) {
        localStorage.setItem("tileworld.token", value);
        sessionStorage.setItem("seeded", "1");
      }
    }, JSON.stringify(kept));
    return { page, context };
  };

  it("the play client forgets it, signs in afresh and plays, saying so", async () => {
    const kept = await foreignToken();
    const { page, context } = await pageKeeping(kept);
    const tokens: (string | null)[] = [];
    page.on("websocket", (socket) => tokens.push(new URL(socket.url()).searchParams.get("token")));
    try {
      await page.goto(`${server.baseUrl}/play`);
      await page.locator('#status[data-status="online"]').waitFor({ timeout: 15000 });
      assert.equal(tokens[0], kept.token, "the kept token tried first");
      assert.notEqual(tokens.at(-1), kept.token, "then a new one");
      // Said in the chat, which stays: the earlier character is lost to this browser.
      await page
        .locator("#chat-log li.server", { hasText: /earlier character could not be signed in again/ })
        .waitFor();
    } finally {
      await context.close();
    }
  });

  it("the play client comes back as the same character after its token ran out, and says nothing", async () => {
    const { page, context } = await openPage(browser);
    try {
      await page.goto(`${server.baseUrl}/play`);
      await page.locator('#status[data-status="online"]').waitFor({ timeout: 15000 });
      await page.locator("#player-name", { hasText: /^[^…]/ }).waitFor();
      const name = await page.locator("#player-name").textContent();
      await page.close();
      // Two hours later (tokens last one): the kept token has run out, its renewal token has not.
      const later = await context.newPage();
      await later.clock.install({ time: Date.now() + 2 * 60 * 60 * 1000 });
      await later.goto(`${server.baseUrl}/play`);
      await later.locator('#status[data-status="online"]').waitFor({ timeout: 15000 });
      await later.locator("#player-name", { hasText: /^[^…]/ }).waitFor();
      assert.equal(await later.locator("#player-name").textContent(), name, "the same character");
      assert.equal(await later.locator("#chat-log li.server").count(), 0, "nothing to tell");
    } finally {
      await context.close();
    }
  });

  it("the dashboard forgets it, signs in afresh and lists the agents", async () => {
    const { page, context } = await pageKeeping(await foreignToken());
    try {
      await page.goto(`${server.baseUrl}/dashboard`);
      await page.locator("#poll-status", { hasText: /^Updated/ }).waitFor({ timeout: 15000 });
    } finally {
      await context.close();
    }
  });
});
