import assert from "node:assert/strict";
import { mkdir, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { StartupError } from "../../src/config/startup-error.js";
import { type LoadOptions, loadGameData } from "../../src/manifests/loader.js";
import {
  type AssetHost,
  copyShipped,
  deadUrl,
  recordingLogger,
  SHIPPED_DIR,
  startAssetHost,
  tempDir,
} from "./helpers.js";

describe("manifest loader", () => {
  let work: Awaited<ReturnType<typeof tempDir>>;
  let hosts: AssetHost[];
  let manifestDir: string;
  let cacheDir: string;

  beforeEach(async () => {
    work = await tempDir();
    hosts = [];
    manifestDir = join(work.path, "manifests");
    cacheDir = join(work.path, "cache");
  });

  afterEach(async () => {
    await Promise.all(hosts.map((host) => host.close()));
    await work.remove();
  });

  async function host(overrides?: Map<string, string>, dir = SHIPPED_DIR): Promise<AssetHost> {
    const started = await startAssetHost(dir, overrides);
    hosts.push(started);
    return started;
  }

  function options(
    overrides: Partial<LoadOptions>,
  ): LoadOptions & { log: ReturnType<typeof recordingLogger> } {
    return {
      env: "production",
      manifestDir,
      cacheDir,
      cdnUrl: "http://127.0.0.1:9",
      productionCdnUrl: "http://127.0.0.1:9",
      skipManifests: false,
      timeoutMs: 2000,
      ...overrides,
      log: recordingLogger(),
    };
  }

  /** Puts a copy of the shipped manifests in the cache, dated in the past to spot rewrites. */
  async function primeCache(): Promise<void> {
    await copyShipped(cacheDir);
    const old = new Date("2020-01-01T00:00:00Z");
    for (const entry of await readdir(cacheDir, { recursive: true }))
      await utimes(join(cacheDir, entry), old, old);
  }

  const rewritten = async (file: string) =>
    (await stat(join(cacheDir, file))).mtime.getUTCFullYear() !== 2020;

  describe("in production", () => {
    it("fetches every file and rewrites only the ones that changed", async () => {
      await primeCache();
      const npcs = JSON.parse(await readFile(join(SHIPPED_DIR, "npcs.json"), "utf8"));
      npcs[0].name = "Hen";
      const assets = await host(new Map([["npcs.json", JSON.stringify(npcs)]]));
      const opts = options({ cdnUrl: assets.url });

      const loaded = await loadGameData(opts);

      assert.equal(loaded.dir, cacheDir);
      assert.equal(loaded.data.npcs.get("chicken")?.name, "Hen");
      assert.ok(assets.requests.includes("/manifests/items/weapons.json"));
      assert.equal(JSON.parse(await readFile(join(cacheDir, "npcs.json"), "utf8"))[0].name, "Hen");
      assert.equal(await rewritten("npcs.json"), true);
      assert.equal(await rewritten("stores.json"), false);
      assert.equal(await rewritten("items/food.json"), false);
      assert.ok(
        opts.log.lines.some((line) => /1 changed \(npcs\.json\), 26 unchanged/.test(line)),
        opts.log.lines.join("\n"),
      );
    });

    it("fills an empty cache from the asset host", async () => {
      const assets = await host();
      const loaded = await loadGameData(options({ cdnUrl: assets.url }));
      assert.equal(loaded.data.startingAreaId, "meadowbrook");
      assert.equal(
        await readFile(join(cacheDir, "gathering/fishing.json"), "utf8"),
        await readFile(join(SHIPPED_DIR, "gathering/fishing.json"), "utf8"),
      );
    });

    it("falls back to the cache when the asset host is down", async () => {
      await primeCache();
      const opts = options({ cdnUrl: await deadUrl() });
      const loaded = await loadGameData(opts);
      assert.equal(loaded.dir, cacheDir);
      assert.ok(loaded.data.items.has("coins"));
      assert.ok(
        opts.log.lines.some((line) => line.startsWith("warn") && /unreachable.*cached files/.test(line)),
      );
    });

    it("says which host it waits for before a host that does not answer holds the start", async () => {
      await primeCache();
      const silent = createServer(() => {});
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      try {
        const opts = options({ cdnUrl: url, timeoutMs: 300 });
        await loadGameData(opts);
        const waiting = opts.log.lines.findIndex((line) => line.includes(`fetching`) && line.includes(url));
        const gaveUp = opts.log.lines.findIndex((line) => /unreachable.*cached files/.test(line));
        assert.ok(waiting >= 0 && waiting < gaveUp, opts.log.lines.join("\n"));
        assert.match(opts.log.lines[waiting] ?? "", /^info.*0\.3 s/);
      } finally {
        silent.closeAllConnections();
        silent.close();
      }
    });

    it("fails clearly when the asset host is down and there is no cache", async () => {
      const url = await deadUrl();
      await assert.rejects(loadGameData(options({ cdnUrl: url })), (error: Error) => {
        assert.match(error.message, new RegExp(`asset host ${url} is unreachable .* holds no cached copy`));
        assert.ok(error instanceof StartupError, "printed alone, as what to fix");
        assert.match(error.message, /Set PUBLIC_CDN_URL/);
        return true;
      });
    });

    it("keeps the cached copy of a file that downloads corrupt", async () => {
      await primeCache();
      const assets = await host(new Map([["items/food.json", '[{"id": "shrimps", "na']]));
      const opts = options({ cdnUrl: assets.url });
      const loaded = await loadGameData(opts);
      assert.equal(loaded.data.items.get("shrimps")?.heals, 3);
      assert.equal(await rewritten("items/food.json"), false);
      assert.ok(
        opts.log.lines.some(
          (line) =>
            line.startsWith("warn") &&
            line.includes("corrupt downloads") &&
            line.includes("items/food.json") &&
            line.includes("the previous copy kept"),
        ),
      );
    });

    it("names what is wrong with a file that downloads corrupt on a first start, not a missing file", async () => {
      const assets = await host(new Map([["npcs.json", "{bad"]]));
      await assert.rejects(loadGameData(options({ cdnUrl: assets.url })), (error: Error) => {
        assert.match(error.message, /npcs\.json.*not valid JSON/);
        assert.doesNotMatch(error.message, /npcs\.json: file is missing/);
        return true;
      });
    });

    it("drops from the cache what the host no longer serves, so a change of layout starts", async () => {
      // The cache holds the items split in items/*.json; the host now serves them as one items.json.
      await primeCache();
      const hostDir = join(work.path, "host");
      await copyShipped(hostDir);
      const itemFiles = (await readdir(join(hostDir, "items"))).map((file) => `items/${file}`);
      const allItems = [];
      for (const file of itemFiles) allItems.push(...JSON.parse(await readFile(join(hostDir, file), "utf8")));
      await rm(join(hostDir, "items"), { recursive: true });
      await writeFile(join(hostDir, "items.json"), JSON.stringify(allItems));
      const opts = options({ cdnUrl: (await host(undefined, hostDir)).url });

      const loaded = await loadGameData(opts);

      assert.equal(loaded.data.items.size, allItems.length);
      assert.ok(await readFile(join(cacheDir, "items.json"), "utf8"));
      for (const file of itemFiles)
        await assert.rejects(stat(join(cacheDir, file)), { code: "ENOENT" }, `${file} left the cache`);
      assert.ok(
        opts.log.lines.some((line) => line.includes(`${itemFiles.length} removed`)),
        opts.log.lines.join("\n"),
      );
    });

    it("keeps the cached copy of a file whose download fails, rather than take it for gone", async () => {
      await primeCache();
      const assets = await startAssetHost(SHIPPED_DIR, new Map(), new Set(["items/food.json"]));
      hosts.push(assets);
      const opts = options({ cdnUrl: assets.url });
      const loaded = await loadGameData(opts);
      assert.equal(loaded.data.items.get("shrimps")?.heals, 3);
      assert.equal(await rewritten("items/food.json"), false, "the cached copy stays");
      assert.ok(
        opts.log.lines.some((line) => line.includes("failed, cached copies kept: items/food.json")),
        opts.log.lines.join("\n"),
      );
    });

    it("stops start-up with the report when the data is invalid, leaving the cache alone", async () => {
      await primeCache();
      const stores = JSON.parse(await readFile(join(SHIPPED_DIR, "stores.json"), "utf8"));
      stores[0].items[0].itemId = "magic_beans";
      const assets = await host(new Map([["stores.json", JSON.stringify(stores)]]));
      await assert.rejects(
        loadGameData(options({ cdnUrl: assets.url })),
        /stores\.json \[0\]\.items\[0\]\.itemId: unknown item "magic_beans"/,
      );
      assert.equal(await rewritten("stores.json"), false);
    });
  });

  describe("in development", () => {
    it("skips the fetch when the local manifests exist", async () => {
      await copyShipped(manifestDir);
      const assets = await host();
      const opts = options({ env: "development", cdnUrl: assets.url });
      const loaded = await loadGameData(opts);
      assert.equal(loaded.dir, manifestDir);
      assert.deepEqual(assets.requests, []);
      assert.ok(opts.log.lines.some((line) => line.includes("fetch skipped")));
    });

    it("fetches from the local asset host when required files are missing", async () => {
      const assets = await host();
      const loaded = await loadGameData(options({ env: "development", cdnUrl: assets.url }));
      assert.equal(loaded.dir, manifestDir);
      assert.ok((await stat(join(manifestDir, "world-areas.json"))).isFile());
    });

    it("bootstraps from the production host when the local host is down, naming the missing files", async () => {
      await mkdir(manifestDir, { recursive: true });
      const npcs = JSON.parse(await readFile(join(SHIPPED_DIR, "npcs.json"), "utf8"));
      npcs[0].name = "Local hen";
      await writeFile(join(manifestDir, "npcs.json"), JSON.stringify(npcs));
      const production = await host();
      const opts = options({ env: "development", cdnUrl: await deadUrl(), productionCdnUrl: production.url });

      const loaded = await loadGameData(opts);

      assert.ok(loaded.data.areas.length >= 5);
      assert.equal(loaded.data.npcs.get("chicken")?.name, "Local hen", "local files are not overwritten");
      assert.ok(production.requests.includes("/manifests/world-areas.json"));
      assert.ok((await stat(join(manifestDir, "items/food.json"))).isFile());
      const missingLine = opts.log.lines.find((line) => line.includes("required files missing"));
      assert.ok(
        missingLine?.includes("world-areas.json, biomes.json, stores.json, items/weapons.json"),
        missingLine,
      );
      assert.ok(!missingLine?.includes("npcs.json"));
      assert.ok(opts.log.lines.some((line) => line.includes(`bootstrapping from ${production.url}`)));
    });

    it("fails clearly when files are missing and both hosts are down", async () => {
      const opts = options({
        env: "development",
        cdnUrl: await deadUrl(),
        productionCdnUrl: await deadUrl(),
      });
      await assert.rejects(
        loadGameData(opts),
        /required files missing \(npcs\.json, .*\) and neither .* is reachable/,
      );
    });

    it("stops with the report, and claims no last good copy, when local data is invalid and none was kept", async () => {
      await copyShipped(manifestDir);
      await writeFile(join(manifestDir, "stores.json"), '[{"id": "general_store"}]');
      const opts = options({ env: "development" });
      await assert.rejects(loadGameData(opts), /stores\.json[\s\S]*no valid last good copy/);
      assert.ok(
        !opts.log.lines.some((line) => line.includes("runs on the last good copy")),
        opts.log.lines.join("\n"),
      );
    });

    it("warns loudly and uses the last good copy when local data turns invalid", async () => {
      await copyShipped(manifestDir);
      await loadGameData(options({ env: "development" }));
      const npcsPath = join(manifestDir, "npcs.json");
      const npcs = JSON.parse(await readFile(npcsPath, "utf8"));
      npcs[0].drops[0].itemId = "egg";
      await writeFile(npcsPath, JSON.stringify(npcs));

      const opts = options({ env: "development" });
      const loaded = await loadGameData(opts);

      assert.equal(loaded.dir, cacheDir);
      assert.equal(loaded.data.npcs.get("chicken")?.drops[0]?.itemId, "bones");
      assert.ok(
        opts.log.lines.some(
          (line) =>
            line.startsWith("error") && line.includes('npcs.json [0].drops[0].itemId: unknown item "egg"'),
        ),
      );
    });
  });

  it("with SKIP_MANIFESTS neither fetches nor validates", async () => {
    await copyShipped(manifestDir);
    const storesPath = join(manifestDir, "stores.json");
    const stores = JSON.parse(await readFile(storesPath, "utf8"));
    stores[0].items[0].itemId = "magic_beans";
    await writeFile(storesPath, JSON.stringify(stores));
    const assets = await host();

    const loaded = await loadGameData(
      options({ env: "production", cdnUrl: assets.url, skipManifests: true }),
    );

    assert.deepEqual(assets.requests, []);
    assert.equal(loaded.dir, manifestDir);
    assert.equal(loaded.data.stores.get("general_store")?.items[0]?.itemId, "magic_beans");
  });
});
