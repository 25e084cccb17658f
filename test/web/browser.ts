// Debian's Chromium, driven headless through playwright-core, for the tests of the pages. A suite
// launches one browser; each page's console errors are collected, and screenshots go to test-output/.
import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import path from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { PROJECT_ROOT } from "../../src/config/paths.js";
import { startTestServer, type TestServer } from "../support/server.js";

export const CHROMIUM = "/usr/bin/chromium";
/** Gitignored: the screenshots of the last run. */
export const SCREENSHOT_DIR = path.join(PROJECT_ROOT, "test-output", "screenshots");

/**
 * Skips the suite, saying why, where Chromium is not installed (`apt-get install -y chromium`; .ci/run
 * installs it). Call from the suite's `before`.
 */
export function skipWithoutChromium(context: Mocha.Context): void {
  if (existsSync(CHROMIUM)) return;
  console.warn(
    `  skipped: the browser tests need Debian's Chromium at ${CHROMIUM} (apt-get install -y chromium)`,
  );
  context.skip();
}

/** Playwright gives each launch a fresh, temporary --user-data-dir of its own. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

export interface WatchedPage {
  page: Page;
  context: BrowserContext;
  /** Console errors and uncaught exceptions of the page, as they were logged. */
  errors: string[];
}

/** A refusal the page expects and handles: Chromium logs every 4xx as a console error all the same. */
export interface ExpectedRefusal {
  status: number;
  url: RegExp;
}

/**
 * A page in a context of its own (its own storage: its own signed-in identity), whose console errors are
 * kept, but for the `expected` refusals (an endpoint it probes for, a limit a test drives it past).
 */
export async function openPage(browser: Browser, expected: ExpectedRefusal[] = []): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() !== "error") return;
    const url = message.location().url;
    const status = Number(/status of (\d+)/.exec(message.text())?.[1]);
    const handled = expected.some((refusal) => refusal.status === status && refusal.url.test(url));
    if (!handled) errors.push(`${message.text()} (${url})`);
  });
  page.on("pageerror", (error) => errors.push(`uncaught: ${error.message}`));
  return { page, context, errors };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file });
  return file;
}

/** The token the page signed in with, kept in its storage. */
export const tokenOf = (page: Page): Promise<string> =>
  page.evaluate(() => JSON.parse(localStorage.getItem("tileworld.token") ?? "{}").token);

/** The identity (`sub`) of the token the page keeps in its storage. */
async function keptSubject(page: Page): Promise<{ token: string; subject: string }> {
  const token = await tokenOf(page);
  return { token, subject: JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()).sub };
}

/**
 * Runs the page's clock (installed before it loaded) 56 minutes on, tokens lasting an hour, then
 * `runOnMs` more so that the page's own timer comes due past the jump (a jump fires a timer at most
 * once), and waits for the kept token to change. The identities before and after.
 */
export async function identitiesAcrossTheHour(page: Page, runOnMs: number): Promise<[string, string]> {
  const before = await keptSubject(page);
  await page.clock.fastForward("56:00");
  await page.clock.runFor(runOnMs);
  await page.waitForFunction((token) => {
    const now = JSON.parse(localStorage.getItem("tileworld.token") ?? "{}").token;
    return now !== undefined && now !== token;
  }, before.token);
  return [before.subject, (await keptSubject(page)).subject];
}

/** A suite's server and browser, read once its `before` has started them. */
export interface BrowserSuite {
  readonly server: TestServer;
  readonly browser: Browser;
  /** Pages checked for console errors after each test. */
  pages: WatchedPage[];
}

/**
 * Mocha hooks of a suite of pages: a server started with `env` and a browser for the suite, and every
 * page pushed onto `pages` checked for console errors after each test.
 */
export function browserSuite(env: Record<string, string>): BrowserSuite {
  let server: TestServer;
  let browser: Browser;
  const pages: WatchedPage[] = [];
  before(async function () {
    skipWithoutChromium(this);
    server = await startTestServer(env);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });
  afterEach(() => {
    for (const { errors } of pages) assert.deepEqual(errors, [], "no page logs a console error");
  });
  return {
    get server() {
      return server;
    },
    get browser() {
      return browser;
    },
    pages,
  };
}
