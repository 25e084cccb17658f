import assert from "node:assert/strict";
import net from "node:net";
import os from "node:os";
import { loadConfig } from "../../src/config/config.js";
import { joinAsNewPlayer, leave, sleep } from "../support/players.js";
import { startTestServer, TEST_PORT, type TestServer } from "../support/server.js";
import { connectNewPlayer } from "../support/ws-client.js";
import { signInAnonymously } from "./support.js";

const HEADERS_MS = 400;
const REQUEST_MS = 800;

/**
 * A raw connection that `feed` writes to; resolves with what the server answered and how long after
 * the connection it closed it (or gave up after `giveUpMs`, with `closedAfterMs` undefined).
 */
function slowClient(feed: (socket: net.Socket) => void, giveUpMs = 4000) {
  return new Promise<{ answer: string; closedAfterMs?: number }>((resolve) => {
    const started = Date.now();
    const socket = net.connect(TEST_PORT, "127.0.0.1");
    let answer = "";
    const trickle = setInterval(() => socket.writable && socket.write("a"), 100);
    const giveUp = setTimeout(() => {
      socket.destroy();
      resolve({ answer });
    }, giveUpMs);
    socket.on("data", (bytes) => {
      answer += bytes.toString();
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      clearInterval(trickle);
      clearTimeout(giveUp);
      resolve({ answer, closedAfterMs: Date.now() - started });
    });
    feed(socket);
  });
}

/** The JSON body of a raw HTTP answer. */
function bodyOf(answer: string) {
  return JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) as { error: { code: string } };
}

describe("slow HTTP clients", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({
      HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS),
      HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS),
    });
  });
  after(() => server?.stop());

  it("answers 408 and closes a connection whose headers trickle in past the headers timeout", async () => {
    // A byte every 100 ms: each keeps the socket busy, so only the headers timeout can end it.
    const { answer, closedAfterMs } = await slowClient((socket) =>
      socket.write("GET /health HTTP/1.1\r\nX-Slow: "),
    );
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.deepEqual(bodyOf(answer), {
      error: { code: "request_timeout", message: "the request did not arrive in time" },
    });
    assert.ok(
      closedAfterMs !== undefined && closedAfterMs < HEADERS_MS + 1500,
      `closed after ${closedAfterMs} ms`,
    );
  });

  it("answers 408 and closes a connection whose body trickles in past the request timeout", async () => {
    // A route that reads its body: a signed-in caller's rename.
    const { token } = await signInAnonymously(server);
    const { answer, closedAfterMs } = await slowClient((socket) =>
      socket.write(
        `POST /api/v1/player HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`,
      ),
    );
    assert.match(answer, /^HTTP\/1\.1 408 /);
    assert.ok(
      closedAfterMs !== undefined && closedAfterMs < REQUEST_MS + 1500,
      `closed after ${closedAfterMs} ms`,
    );
  });

  it("answers headers too large, and bytes that are not HTTP, in the contract's error body", async () => {
    const tooLarge = await slowClient((socket) =>
      socket.write(
        `GET /api/v1/player HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${"a".repeat(20_000)}\r\n\r\n`,
      ),
    );
    assert.match(tooLarge.answer, /^HTTP\/1\.1 431 /);
    assert.equal(bodyOf(tooLarge.answer).error.code, "headers_too_large");
    const notHttp = await slowClient((socket) => socket.write("HELLO THERE\r\n\r\n"));
    assert.match(notHttp.answer, /^HTTP\/1\.1 400 /);
    assert.equal(bodyOf(notHttp.answer).error.code, "bad_request");
  });

  it("leaves open WebSocket connections alone, on /ws and through the SDK, however long they last", async () => {
    const wsPlayer = await connectNewPlayer(server);
    const sdkPlayer = await joinAsNewPlayer(server);
    try {
      await sleep(3 * REQUEST_MS);
      wsPlayer.client.send("player:chat", { message: "still here" });
      await wsPlayer.client.next("chat:message", (data) => data.message === "still here");
      sdkPlayer.room.send("player:chat", { message: "me too" });
      await sdkPlayer.inbox.next("chat:message", (data: { message: string }) => data.message === "me too");
    } finally {
      await wsPlayer.client.close();
      await leave(sdkPlayer.room);
    }
  });

  it("refuses a headers timeout longer than the request timeout, naming both", () => {
    assert.throws(
      () => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: "5000", HTTP_REQUEST_TIMEOUT_MS: "1000" }),
      /HTTP_HEADERS_TIMEOUT_MS \(5000\) is longer than HTTP_REQUEST_TIMEOUT_MS \(1000\)/,
    );
  });
});

/** An address of this machine other than the loopback: connections from it count as a client's. */
const outsideAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((info) => info && info.family === "IPv4" && !info.internal)?.address;

/** A keep-alive connection from `address` that has been answered once (so the server holds it), or why not. */
async function heldConnection(address: string): Promise<{ socket: net.Socket; answered: boolean }> {
  const socket = net.connect({ host: address, port: TEST_PORT, localAddress: address });
  socket.on("error", () => {});
  const answered = await new Promise<boolean>((resolve) => {
    socket.once("data", (bytes) => resolve(bytes.toString().startsWith("HTTP/1.1 200")));
    socket.once("close", () => resolve(false));
    socket.write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
  });
  return { socket, answered };
}

(outsideAddress ? describe : describe.skip)("connections per client address", () => {
  const LIMIT = 3;
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ MAX_CONNECTIONS_PER_ADDRESS: String(LIMIT) });
  });
  after(() => server?.stop());

  it("closes a client's connection past the limit unanswered, and takes one again once another closes", async () => {
    // The server's end of each connection, by the client's port: its close is what frees a place.
    const serverEnds = new Map<number, net.Socket>();
    const noteEnd = (socket: net.Socket) => serverEnds.set(socket.remotePort!, socket);
    server.runtime.httpServer.on("connection", noteEnd);
    const held = await Promise.all(Array.from({ length: LIMIT }, () => heldConnection(outsideAddress!)));
    assert.deepEqual(
      held.map(({ answered }) => answered),
      [true, true, true],
    );
    const refused = await heldConnection(outsideAddress!);
    assert.equal(refused.answered, false);
    // The machine's own connections (its agents, a proxy beside it) are not counted.
    assert.equal((await fetch(`${server.baseUrl}/health`)).status, 200);

    // Once the server has seen it close (the limit's own listener, added first, has run by then).
    const serverEnd = serverEnds.get(held[0]!.socket.localPort!)!;
    server.runtime.httpServer.off("connection", noteEnd);
    const closed = new Promise((resolve) => serverEnd.once("close", resolve));
    held[0]!.socket.destroy();
    await closed;
    const again = await heldConnection(outsideAddress!);
    assert.equal(again.answered, true);
    for (const { socket } of [...held, again]) socket.destroy();
  });
});

(outsideAddress ? describe : describe.skip)("connections per address behind a proxy", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ MAX_CONNECTIONS_PER_ADDRESS: "2", TRUST_PROXY: "1" });
  });
  after(() => server?.stop());

  it("are not limited: every client's connection comes from the proxy's address", async () => {
    const held = await Promise.all(Array.from({ length: 3 }, () => heldConnection(outsideAddress!)));
    assert.deepEqual(
      held.map(({ answered }) => answered),
      [true, true, true],
    );
    for (const { socket } of held) socket.destroy();
  });
});
