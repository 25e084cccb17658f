// web/connection.js's back-off and what it says, run in Node with a stand-in WebSocket and timers: clients reconnect
// after 4503 (and a Redis outage's refusals) "with back-off (1 s, 2 s, 4 s... up to 30 s, with jitter)",
// as docs/protocol.md asks of them.
import assert from "node:assert/strict";

class FakeSocket {
  static OPEN = 1;
  static made: FakeSocket[] = [];
  readyState = 0;
  onopen?: () => void;
  onmessage?: (m: { data: string }) => void;
  onclose?: (c: { code: number }) => void;
  constructor(readonly url: URL) {
    FakeSocket.made.push(this);
  }
  close() {}
  send() {}
}

/**
 * The delays a client waits before each of its next `count` attempts, every attempt refused with `code`,
 * and what it says meanwhile.
 */
async function reconnections(code: number, count: number): Promise<{ delays: number[]; said: string[] }> {
  const realWebSocket = globalThis.WebSocket;
  const realSetTimeout = globalThis.setTimeout;
  const pending: { fn: () => void; ms: number }[] = [];
  (globalThis as any).WebSocket = FakeSocket;
  (globalThis as any).setTimeout = (fn: () => void, ms: number) => {
    pending.push({ fn, ms });
    return 0;
  };
  const said: string[] = [];
  try {
    // A browser module without types: its path as a plain string, so that tsc does not look for them.
    const module: string = "../../web/connection.js";
    const { GameConnection } = (await import(module)) as { GameConnection: new (options: object) => any };
    const connection = new GameConnection({
      url: "ws://example.test/ws",
      token: async () => "token",
      onEvent: () => {},
      onStatus: (status: string, detail?: string) => {
        if (status === "reconnecting") said.push(detail ?? "");
      },
      onOpen: () => {},
    });
    await connection.connect();
    const delays: number[] = [];
    for (let i = 0; i < count; i++) {
      FakeSocket.made.at(-1)!.onclose!({ code });
      const next = pending.shift()!;
      delays.push(next.ms);
      next.fn();
      await new Promise((resolve) => realSetTimeout(resolve, 0));
    }
    return { delays, said };
  } finally {
    globalThis.WebSocket = realWebSocket;
    globalThis.setTimeout = realSetTimeout;
  }
}

describe("the play client's reconnection back-off", () => {
  it("backs off from about 1 s, doubling, up to about 30 s after 4503 (unavailable)", async () => {
    const { delays } = await reconnections(4503, 8);
    const doubling = [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000];
    for (const [i, delay] of delays.entries())
      assert.ok(delay >= doubling[i]! / 2 && delay <= doubling[i]!, `wait ${i + 1}: ${delay} ms`);
  });

  it("adds jitter, so that the players a restart dropped do not all come back at the same instant", async () => {
    const first = (await reconnections(4001, 4)).delays;
    const second = (await reconnections(4001, 4)).delays;
    assert.notDeepEqual(first, second, `both clients wait exactly ${first.join(", ")} ms`);
  });

  it("says why the connection closed in words, not by its close code", async () => {
    assert.deepEqual((await reconnections(4001, 1)).said, ["The server is restarting: reconnecting…"]);
    assert.deepEqual((await reconnections(4503, 1)).said, [
      "The server cannot reach its database: reconnecting…",
    ]);
    assert.deepEqual((await reconnections(1006, 1)).said, ["The connection dropped: reconnecting…"]);
    assert.deepEqual((await reconnections(4999, 1)).said, ["The connection was lost: reconnecting…"]);
  });
});
