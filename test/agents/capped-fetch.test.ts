import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  AnswerTooLargeError,
  cappedFetch,
  MAX_ANSWER_BYTES,
} from "../../src/agents/planners/capped-fetch.js";

describe("the model clients' fetch: answers read up to a cap", () => {
  let server: http.Server;
  let base: string;
  /** How many bytes of each answer the server managed to hand to the socket before it closed. */
  const written: number[] = [];

  before(async () => {
    server = http.createServer((req, res) => {
      const bytes = Number(new URL(req.url!, "http://x").searchParams.get("bytes"));
      const declared = req.url!.includes("declared");
      res.writeHead(200, declared ? { "content-length": String(bytes) } : {});
      let sent = 0;
      const piece = Buffer.alloc(16 * 1024, 97);
      const more = (): void => {
        // Sizes are whole pieces.
        while (sent < bytes && !res.destroyed) {
          sent += piece.length;
          if (!res.write(piece)) return void res.once("drain", more);
        }
        if (!res.destroyed) res.end();
      };
      res.on("close", () => written.push(sent));
      more();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it("passes an answer within the cap whole", async () => {
    const text = await (await cappedFetch(`${base}/?bytes=${32 * 1024}`)).text();
    assert.equal(text.length, 32 * 1024);
  });

  it("refuses an answer whose length is past the cap before reading it", async () => {
    await assert.rejects(cappedFetch(`${base}/declared?bytes=${8 * 2 ** 20}`), AnswerTooLargeError);
  });

  it("stops reading an answer without a length once past the cap", async () => {
    const response = await cappedFetch(`${base}/?bytes=${64 * 2 ** 20}`);
    await assert.rejects(response.text(), AnswerTooLargeError);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(written.at(-1)! < 16 * MAX_ANSWER_BYTES, `the server wrote ${written.at(-1)} bytes`);
  });
});
