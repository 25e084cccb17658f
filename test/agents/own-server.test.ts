import assert from "node:assert/strict";
import { throughOwnServer } from "../../src/agents/own-server.js";

describe("throughOwnServer: agents connect to the world in their own process", () => {
  const internal = new URL("http://127.0.0.1:41234");

  it("leaves what already goes to the process alone (matchmaking, a room without a public address)", () => {
    const matchmake = new URL("http://127.0.0.1:41234/matchmake/joinOrCreate/world");
    assert.equal(throughOwnServer(matchmake, internal), matchmake.toString());
    const room = new URL("ws://127.0.0.1:41234/p1/r1?sessionId=s1");
    assert.equal(throughOwnServer(room, internal), room.toString());
  });

  it("sends a room connection named by a public address to the process instead", () => {
    // Colyseus Cloud's public address is `subdomain.server/port`; PUBLIC_ADDRESS is `host:port`.
    assert.equal(
      throughOwnServer(
        new URL("ws://game.eu.colyseus.cloud/2567/p1/r1?sessionId=s1&reconnectionToken=t"),
        internal,
      ),
      "ws://127.0.0.1:41234/p1/r1?sessionId=s1&reconnectionToken=t",
    );
    assert.equal(
      throughOwnServer(new URL("ws://10.0.0.5:2570/p2/r2?sessionId=s2"), internal),
      "ws://127.0.0.1:41234/p2/r2?sessionId=s2",
    );
  });
});
