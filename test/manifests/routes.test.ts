import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import express from "express";
import { SKILLS } from "../../src/game/types.js";
import { manifestRouter, skillUnlocksRouter } from "../../src/manifests/routes.js";
import { validateManifests } from "../../src/manifests/validate.js";
import { close, listen, rawGet, SHIPPED_DIR, shippedTexts } from "./helpers.js";

describe("manifest routes over HTTP", () => {
  let server: Server;
  let base: string;

  before(async () => {
    const validation = validateManifests(await shippedTexts());
    assert.ok(validation.ok);
    const app = express();
    app.use(
      "/manifests",
      manifestRouter(() => SHIPPED_DIR),
    );
    app.use(
      "/api/data/skill-unlocks",
      skillUnlocksRouter(() => validation.data),
    );
    server = createServer(app);
    base = await listen(server);
  });

  after(() => close(server));

  describe("GET /manifests/{file}", () => {
    it("serves a file as JSON with a 5-minute cache lifetime and an ETag", async () => {
      const res = await rawGet(base, "/manifests/npcs.json");
      assert.equal(res.status, 200);
      assert.equal(res.headers["content-type"], "application/json; charset=utf-8");
      assert.equal(res.headers["cache-control"], "public, max-age=300");
      assert.match(String(res.headers.etag), /^"[A-Za-z0-9_-]+"$/);
      assert.ok(JSON.parse(res.body).some((npc: { id: string }) => npc.id === "chicken"));
    });

    it("serves nested paths", async () => {
      const res = await rawGet(base, "/manifests/items/weapons.json");
      assert.equal(res.status, 200);
      assert.ok(JSON.parse(res.body).some((item: { id: string }) => item.id === "shortbow"));
    });

    it("serves items.json, which the interface's startup list names, as every item of the split items/ files", async () => {
      const res = await rawGet(base, "/manifests/items.json");
      assert.equal(res.status, 200);
      assert.equal(res.headers["cache-control"], "public, max-age=300");
      const split = (await readdir(join(SHIPPED_DIR, "items"))).sort();
      assert.ok(
        split.length >= 5 && !(await readdir(SHIPPED_DIR)).includes("items.json"),
        "the items come split",
      );
      const expected = new Set<string>();
      for (const file of split) {
        const items: { id: string }[] = JSON.parse(await readFile(join(SHIPPED_DIR, "items", file), "utf8"));
        for (const item of items) expected.add(item.id);
      }
      const served: { id: string }[] = JSON.parse(res.body);
      assert.equal(served.length, expected.size);
      assert.deepEqual(new Set(served.map((item) => item.id)), expected);
      const revalidated = await rawGet(base, "/manifests/items.json", {
        "If-None-Match": String(res.headers.etag),
      });
      assert.equal(revalidated.status, 304);
    });

    it("answers 304 to a matching If-None-Match and 200 to a stale one", async () => {
      const first = await rawGet(base, "/manifests/gathering/fishing.json");
      const etag = String(first.headers.etag);
      const revalidated = await rawGet(base, "/manifests/gathering/fishing.json", { "If-None-Match": etag });
      assert.equal(revalidated.status, 304);
      assert.equal(revalidated.body, "");
      assert.equal(revalidated.headers.etag, etag);
      const stale = await rawGet(base, "/manifests/gathering/fishing.json", { "If-None-Match": '"old"' });
      assert.equal(stale.status, 200);
      for (const listed of [`W/"old", ${etag}`, `W/${etag}`, "*"]) {
        const status = (await rawGet(base, "/manifests/gathering/fishing.json", { "If-None-Match": listed }))
          .status;
        assert.equal(status, 304, listed);
      }
    });

    it("answers unknown files with the contract's 404 body", async () => {
      const res = await rawGet(base, "/manifests/dragons.json");
      assert.equal(res.status, 404);
      assert.equal(JSON.parse(res.body).error.code, "not_found");
      assert.equal(typeof JSON.parse(res.body).error.message, "string");
    });

    const escapes = [
      "/manifests/../package.json",
      "/manifests/items/../../package.json",
      "/manifests/%2e%2e/package.json",
      "/manifests/%2E%2E%2Fpackage.json",
      "/manifests/..%2fpackage.json",
      "/manifests/..%5cpackage.json",
      "/manifests/..\\package.json",
      "/manifests/items%2fweapons.json",
      "/manifests//etc/passwd",
      "/manifests/%2fetc%2fpasswd",
      "/manifests/C:%5cWindows%5cwin.ini",
      "/manifests/.%2e/.%2e/package.json",
      "/manifests/%252e%252e/package.json",
    ];
    for (const path of escapes) {
      it(`refuses ${path}`, async () => {
        const res = await rawGet(base, path);
        assert.equal(res.status, 404);
        assert.equal(JSON.parse(res.body).error.code, "not_found");
        assert.doesNotMatch(res.body, /tileworld-server|root:/);
      });
    }
  });

  describe("GET /api/data/skill-unlocks", () => {
    it("returns every skill's unlocks, cacheable, the same for every caller", async () => {
      const res = await rawGet(base, "/api/data/skill-unlocks");
      const other = await rawGet(base, "/api/data/skill-unlocks", { Authorization: "Bearer someone" });
      assert.equal(res.status, 200);
      assert.equal(res.headers["content-type"], "application/json; charset=utf-8");
      assert.equal(res.headers["cache-control"], "public, max-age=300");
      assert.equal(other.body, res.body);
      assert.equal(other.headers.etag, res.headers.etag);
      const map = JSON.parse(res.body);
      assert.deepEqual(Object.keys(map).sort(), [...SKILLS].sort());
      for (const entry of map.attack) {
        assert.deepEqual(Object.keys(entry).sort(), ["description", "level", "type"]);
        assert.ok(["item", "ability", "area", "quest", "activity"].includes(entry.type));
      }
    });

    it("answers 304 to a matching If-None-Match", async () => {
      const first = await rawGet(base, "/api/data/skill-unlocks");
      const again = await rawGet(base, "/api/data/skill-unlocks", {
        "If-None-Match": String(first.headers.etag),
      });
      assert.equal(again.status, 304);
    });
  });
});
