import assert from "node:assert/strict";
import { Protocol } from "@colyseus/core";
import { encode } from "@colyseus/schema";
import { joinAsNewPlayer, leave, type SdkPlayer, waitForAsync } from "../support/players.js";
import { recordingLogger } from "../support/recording-logger.js";
import { startTestServer, type TestServer } from "../support/server.js";

/** A room frame of `protocol` for `event` whose payload is not MessagePack (a map cut short). */
function undecodable(protocol: number, event: string, requestId?: number): Uint8Array {
  const buffer = new Uint8Array(64);
  buffer[0] = protocol;
  const it = { offset: 1 };
  if (requestId !== undefined) encode.number(buffer as never, requestId, it);
  encode.string(buffer as never, event, it);
  buffer.set([0x82, 0xa1], it.offset);
  return buffer.subarray(0, it.offset + 2);
}

describe("SDK frames that are not MessagePack", function () {
  this.timeout(30000);
  const { logger, lines } = recordingLogger("info");
  let server: TestServer;
  const players: SdkPlayer[] = [];

  before(async function () {
    // Opening the embedded database takes long on a busy machine.
    this.timeout(120000);
    server = await startTestServer({ WORLD_TICK_MS: "100" }, { logger });
  });
  afterEach(async () => {
    await Promise.all(players.splice(0).map((player) => leave(player.room)));
  });
  after(() => server?.stop());

  const undecodableLines = (sessionId: string) =>
    lines.filter((line) => line.sessionId === sessionId && /cannot be decoded/.test(line.msg));

  it("are the client's fault: one warning a connection, without a stack, and no error", async () => {
    const first = lines.length;
    const player = await joinAsNewPlayer(server);
    players.push(player);
    const { sessionId } = player.room;
    // Requests leave the connection open: each is refused, and the warning is not repeated.
    for (let id = 1; id <= 3; id++) player.room.connection.send(undecodable(Protocol.ROOM_REQUEST, "x", id));
    // A message that cannot be read closes the connection.
    const closed = new Promise<number>((resolve) => player.room.onLeave((code) => resolve(code)));
    player.room.connection.send(undecodable(Protocol.ROOM_DATA, "player:move"));
    await closed;
    await waitForAsync(async () => undecodableLines(sessionId).length > 0, "the warning");
    const [warning, ...more] = undecodableLines(sessionId);
    assert.deepEqual(more, [], "one warning for the connection");
    assert.equal(warning!.level, 40);
    assert.equal(warning!.characterId, player.id);
    assert.equal(warning!.err, undefined, "no error object, no stack");
    assert.ok(!JSON.stringify(warning).includes("    at "), "no stack trace in the line");
    const errors = lines.slice(first).filter((line) => line.level >= 50);
    assert.deepEqual(errors, [], "nothing logged as an error");
  });

  it("warn once for each connection: another client is told about too", async () => {
    const alice = await joinAsNewPlayer(server);
    const bob = await joinAsNewPlayer(server);
    players.push(alice, bob);
    alice.room.connection.send(undecodable(Protocol.ROOM_REQUEST, "x", 1));
    bob.room.connection.send(undecodable(Protocol.ROOM_REQUEST, "x", 1));
    await waitForAsync(
      async () =>
        undecodableLines(alice.room.sessionId).length === 1 &&
        undecodableLines(bob.room.sessionId).length === 1,
      "one warning each",
    );
  });
});
