// web/connection.js's back-off, run in Node with a stand-in WebSocket and timers: clients reconnect
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

/** The delays a client waits before each of its next `count` attempts, every attempt refused with `code`. */
async function delaysOf(code: number, count: number): Promise<number[]> {
  const realWebSocket = globalThis.WebSocket;
  const realSetTimeout = globalThis.setTimeout;
  const pending: { fn: () => void; ms: number }[] = [];
  (globalThis as any).WebSocket = FakeSocket;
  (globalThis as any).setTimeout = (fn: () => void, ms: number) => {
    pending.push({ fn, ms });
    return 0;
  };
  try {
    // A browser module without types: its path as a plain string, so that tsc does not look for them.
    const module: string = "../../web/connection.js";
    const { GameConnection } = (await import(module)) as { GameConnection: new (options: object) => any };
    const connection = new GameConnection({
      url: "ws://example.test/ws",
      token: async () => "token",
      onEvent: () => {},
      onStatus: () => {},
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
    return delays;
  } finally {
    globalThis.WebSocket = realWebSocket;
    globalThis.setTimeout = realSetTimeout;
  }
}

describe("the play client's reconnection back-off", () => {
  it("backs off from about 1 s, doubling, up to about 30 s after 4503 (unavailable)", async () => {
    const delays = await delaysOf(4503, 8);
    const doubling = [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000];
    for (const [i, delay] of delays.entries())
      assert.ok(delay >= doubling[i]! / 2 && delay <= doubling[i]!, `wait ${i + 1}: ${delay} ms`);
  });

  it("adds jitter, so that the players a restart dropped do not all come back at the same instant", async () => {
    const first = await delaysOf(4001, 4);
    const second = await delaysOf(4001, 4);
    assert.notDeepEqual(first, second, `both clients wait exactly ${first.join(", ")} ms`);
  });
});
