import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { Redis } from "ioredis";
import { sleep } from "../support/players.js";
import { PROCESS_PORTS } from "../support/processes.js";
import { canRunWorldPair, worldPair } from "../support/world-pair.js";
import type { Frame, WsClient } from "../support/ws-client.js";

const pairs = canRunWorldPair ? describe : describe.skip;

pairs("two worlds' processes (WORLDS=2, Redis database 3) when Redis forgets every listing", function () {
  this.timeout(120_000);
  const pair = worldPair(PROCESS_PORTS.listingsLost, { WORLDS: "2" }, 3);

  it("lets a login through the other process join the running world, not open a second one over it", async () => {
    const carol = await pair.open(pair.second, 2, await pair.token());
    const carolSync = await carol.first();
    assert.equal(carolSync.event, "player:sync");
    // Redis shares pub/sub across its databases: what the pair says there must name its own database, or
    // a deployment on another database of the same Redis would take it as its own.
    const listener = new Redis(pair.redisUrl);
    const channels = new Set<string>();
    listener.on("pmessage", (_pattern, channel) => channels.add(channel));
    await listener.psubscribe("world:*");

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
    listener.disconnect();
    assert.deepEqual([...channels].sort(), ["world:listed:db3:2", "world:relist:db3"]);
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

/** Established TCP connections accepted by the server listening on `port`. */
function acceptedOn(port: number): number {
  const out = execFileSync("ss", ["-Htn", "state", "established", `( sport = :${port} )`]).toString();
  return out.split("\n").filter((line) => line.trim()).length;
}

pairs("a /ws player hopping between worlds on two processes", function () {
  this.timeout(120_000);
  const pair = worldPair(PROCESS_PORTS.hopsBetween, { WORLDS: "2" });

  /** Hops, sends `then` on the answer, and waits for the next world's player:sync. */
  async function hop(client: WsClient, world: number, id: string, then: () => void): Promise<Frame> {
    client.send("player:hop", { world }, id);
    const answer = await client.received((frame) => frame.id === id, 10_000);
    assert.equal(answer.event, "player:hop", JSON.stringify(answer));
    then();
    const frames = client.frames;
    return client.received(
      (frame) => frame.event === "player:sync" && frames.indexOf(frame) > frames.indexOf(answer),
      10_000,
    );
  }

  it("is relayed once at most however often it hops, and what it sent meanwhile reaches the next world", async () => {
    const client = await pair.open(pair.first, 1, await pair.token());
    assert.equal((await client.first()).event, "player:sync");
    const connections = () => pair.processes().reduce((sum, server) => sum + acceptedOn(server.port), 0);
    const baseline = connections();
    const perHop: number[] = [];
    for (let round = 0; round < 4; round++) {
      const world = round % 2 === 0 ? 2 : 1;
      const heldId = `held-${round}`;
      // A malformed move sent between the answer and the next world's greeting: that world answers it.
      const sync = await hop(client, world, `hop-${round}`, () =>
        client.send("player:move", { x: "east", z: 1 }, heldId),
      );
      const frames = client.frames;
      const answer = await client.received((frame) => frame.id === heldId, 5000);
      assert.equal(answer.data.code, "bad_request");
      assert.ok(frames.indexOf(answer) > frames.indexOf(sync), "answered by the next world");
      perHop.push(connections());
    }
    assert.ok(
      Math.max(...perHop) <= baseline + 1,
      `connections after each hop: ${perHop.join(", ")} (baseline ${baseline}): at most one relay`,
    );

    // Back in world 1, on the process it is connected to: the other process's death does not reach it.
    await pair.second.stop("SIGKILL");
    const closed = await Promise.race([client.closed, sleep(3000).then(() => undefined)]);
    assert.equal(closed, undefined, `the player of world 1 was closed: ${JSON.stringify(closed)}`);
  });
});
