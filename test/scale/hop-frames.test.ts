// frames a /ws client sends right after it connects, or right after its hop is answered, across two
// processes (WORLDS=2, one world on each). Redis database 13.
import assert from "node:assert/strict";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { postgresUrl } from "../support/databases.js";
import { PROCESS_PORTS, type ServerProcess, twoScaledProcesses } from "../support/processes.js";
import { WsClient } from "../support/ws-client.js";

const redisBase = process.env.TEST_REDIS_URL;
const PORTS = PROCESS_PORTS.hopFrames;
const REDIS_DB = 13;

const scaleOut = redisBase && postgresUrl ? describe : describe.skip;

scaleOut("/ws frames around a relay and a hop (WORLDS=2, two processes)", function () {
  this.timeout(90000);
  const pair = twoScaledProcesses(PORTS, REDIS_DB, { WORLDS: "2" });
  const clients: WsClient[] = [];
  after(() => Promise.all(clients.map((client) => client.close().catch(() => {}))));

  async function open(server: ServerProcess, world: number): Promise<WsClient> {
    const { token } = await issueAnonymousToken(new TextEncoder().encode(pair.secret));
    const client = await WsClient.connect(`ws://127.0.0.1:${server.port}/ws?world=${world}`, {
      header: token,
    });
    clients.push(client);
    return client;
  }

  /** A request the router refuses at once, answered by an `error` frame with its id. */
  const badMove = (client: WsClient, id: string) => client.send("player:move", { x: "east", z: 1 }, id);
  const answerTo = (client: WsClient, id: string) =>
    client.received((frame) => frame.id === id && frame.event === "error", 5000);

  it("answers the same frame sent after the player:sync (control)", async () => {
    const client = await open(pair.first, 2);
    assert.equal((await client.first()).event, "player:sync");
    badMove(client, "after-sync");
    assert.equal((await answerTo(client, "after-sync")).data.code, "bad_request");
  });

  for (const [label, via, world] of [
    ["a direct connection", () => pair.first, 1],
    ["a relayed connection", () => pair.first, 2],
  ] as const) {
    it(`answers a frame sent as soon as ${label} opens, before its player:sync`, async () => {
      const client = await open(via(), world);
      badMove(client, "at-once");
      const answer = await answerTo(client, "at-once");
      assert.equal(answer.data.code, "bad_request");
      assert.equal(client.frames[0]?.event, "player:sync");
    });
  }

  for (const [label, via, from, to] of [
    ["to the world on the other process (relayed on)", () => pair.first, 1, 2],
    ["to the world on the same process", () => pair.first, 2, 1],
  ] as const) {
    it(`answers a frame sent as soon as a hop ${label} is answered`, async () => {
      const client = await open(via(), from);
      assert.equal((await client.first()).event, "player:sync");
      // The frame goes out the moment the hop's answer comes, as a client that does not wait for the
      // next world's player:sync would send it.
      client.socket.on("message", (raw) => {
        const frame = JSON.parse(raw.toString());
        if (frame.event === "player:hop" && frame.id === "hop") badMove(client, "after-hop");
      });
      client.send("player:hop", { world: to }, "hop");
      const hopped = await client.received((frame) => frame.event === "player:hop" && frame.id === "hop");
      assert.equal(hopped.data.world, to);
      const frames = client.frames;
      await client.received(
        (frame) => frame.event === "player:sync" && frames.indexOf(frame) > frames.indexOf(hopped),
        10000,
      );
      const answer = await answerTo(client, "after-hop").catch(() => undefined);
      assert.ok(
        answer,
        `the frame sent after the hop's answer was never answered; frames: ${client.frames.map((f) => f.event + (f.id ? `#${f.id}` : "")).join(", ")}`,
      );
    });
  }
});
