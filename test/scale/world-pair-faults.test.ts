import assert from "node:assert/strict";
import { Redis } from "ioredis";
import { sleep } from "../support/players.js";
import { PROCESS_PORTS } from "../support/processes.js";
import { canRunWorldPair, worldPair } from "../support/world-pair.js";
import type { WsClient } from "../support/ws-client.js";

const pairs = canRunWorldPair ? describe : describe.skip;

pairs("two worlds' processes (WORLDS=2) when Redis forgets every listing", function () {
  this.timeout(120_000);
  const pair = worldPair(PROCESS_PORTS.listingsLost, { WORLDS: "2" });

  it("lets a login through the other process join the running world, not open a second one over it", async () => {
    const carol = await pair.open(pair.second, 2, await pair.token());
    const carolSync = await carol.first();
    assert.equal(carolSync.event, "player:sync");

    // Every listing is lost while every connection stays up: no reconnection makes a process relist.
    const redis = new Redis(pair.redisUrl);
    await redis.flushall();
    redis.disconnect();

    const dave = await pair.open(pair.first, 2, await pair.token());
    assert.equal((await dave.first()).event, "player:sync");
    const closed = await Promise.race([carol.closed, sleep(3000).then(() => undefined)]);
    assert.equal(closed, undefined, `Carol, playing world 2, was closed: ${JSON.stringify(closed)}`);
    await dave.received(
      (frame) =>
        frame.event === "world:update" &&
        frame.data.added?.some((entity: { id: string }) => entity.id === carolSync.data.id),
      5000,
    );
  });
});

pairs("a /ws client relayed to its world's process when that process stalls", function () {
  this.timeout(120_000);
  const pair = worldPair(PROCESS_PORTS.relayStalled, { WORLDS: "2", WS_PING_MS: "1000" });

  it("is let go to reconnect, not held on the stopped world once it runs again elsewhere", async () => {
    const alice = await pair.open(pair.first, 2, await pair.token());
    assert.equal((await alice.first()).event, "player:sync");

    pair.second.child.kill("SIGSTOP");
    // Newcomers to world 2 through the first process find the second silent: world 2 opens on the first.
    let newcomer: WsClient | undefined;
    const deadline = Date.now() + 60_000;
    while (!newcomer && Date.now() < deadline) {
      const client = await pair.open(pair.first, 2, await pair.token()).catch(() => undefined);
      if (client && (await client.first()).event === "player:sync") newcomer = client;
      else await sleep(500);
    }
    assert.ok(newcomer, "world 2 opened again on the first process");

    const closed = await Promise.race([alice.closed, sleep(5000).then(() => undefined)]);
    assert.equal(closed?.code, 1001, "Alice's relay to the stopped process is cut as that process's death");
    const back = await pair.open(pair.first, 2, await pair.token());
    assert.equal((await back.first()).event, "player:sync");
  });
});
