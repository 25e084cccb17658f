import assert from "node:assert/strict";
import { WriterThread } from "../../src/net/writer-thread.js";
import { joinAsNewPlayer, leave, waitForAsync } from "../support/players.js";
import { startTestServer } from "../support/server.js";

describe("the outbox a server's publishes go out through", () => {
  it("is closed with the server: shutdown stops the writer thread its publishes started", async function () {
    if ((process.env.WRITE_PATH ?? "thread") !== "thread") this.skip();
    // The threads started meanwhile, seen as they are handed their first batch.
    const threads = new Set<WriterThread>();
    const { post } = WriterThread.prototype;
    WriterThread.prototype.post = function (this: WriterThread, ...args: Parameters<typeof post>) {
      threads.add(this);
      post.apply(this, args);
    };
    const server = await startTestServer({ WORLD_TICK_MS: "50" });
    try {
      const player = await joinAsNewPlayer(server);
      await waitForAsync(async () => threads.size > 0, "a publish handed to the writer thread");
      await leave(player.room);
      assert.ok(
        [...threads].every((thread) => thread.usable),
        "running while the server runs",
      );
    } finally {
      WriterThread.prototype.post = post;
      await server.stop();
    }
    assert.deepEqual(
      [...threads].map((thread) => thread.usable),
      [false],
      "the server's one writer thread is stopped once it is",
    );
  });
});
