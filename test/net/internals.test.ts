// Canaries for the library internals the thread write path (WRITE_PATH=thread, src/net) relies on. Each
// fails with the internal and the installed version it was checked against: an upgrade that moves one
// must be checked against src/net before the pin in package.json moves, or the server run with
// WRITE_PATH=stream, which touches none of them.

import assert from "node:assert/strict";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo, Socket } from "node:net";
import path from "node:path";
import type { Duplex } from "node:stream";
import { ClientState } from "@colyseus/core";
import { WebSocketClient } from "@colyseus/ws-transport";
import { WebSocket, WebSocketServer } from "ws";
import { socketDescriptor } from "../../src/net/socket-write.js";
import { connectedPair, readExactly } from "../support/tcp.js";

const require = createRequire(import.meta.url);

/** The installed version of `name`, from its package.json (found beside its entry point). */
function installedVersion(name: string): string {
  let dir = path.dirname(require.resolve(name));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
      if (manifest.name === name) return manifest.version;
    } catch {}
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json found for ${name}`);
    dir = parent;
  }
}

/** What a failed canary says: which internal of which package version moved, and where it is used. */
function moved(pkg: string, internal: string, usedIn: string): string {
  const version = pkg === "node" ? process.version : `${pkg} ${installedVersion(pkg)}`;
  return (
    `${version}: ${internal} is no longer as ${usedIn} expects. Adapt ${usedIn} to this version ` +
    "(or run with WRITE_PATH=stream, which touches no internals) before moving the pin in package.json."
  );
}

/** The packages whose internals the thread path touches are pinned exactly, at the installed versions. */
const PINNED = ["@colyseus/core", "@colyseus/schema", "@colyseus/ws-transport", "ws"] as const;

describe("the internals the thread write path relies on", () => {
  it("are in packages pinned exactly to the installed versions, with Node's major in engines", () => {
    const manifest = JSON.parse(readFileSync("package.json", "utf8"));
    const lock = JSON.parse(readFileSync("package-lock.json", "utf8"));
    for (const name of PINNED) {
      const installed = installedVersion(name);
      assert.equal(manifest.dependencies[name], installed, `package.json pins ${name} at ${installed}`);
      assert.equal(
        lock.packages[""].dependencies[name],
        installed,
        `package-lock.json pins ${name} at ${installed}`,
      );
    }
    const major = process.versions.node.split(".")[0];
    assert.equal(manifest.engines.node, `${major}.x`, `engines.node names Node ${major}, which this runs`);
  });

  it("Node: a TCP socket's descriptor as its handle's fd (src/net/socket-write.ts)", async () => {
    const { writer, reader, close } = await connectedPair();
    try {
      const fd = socketDescriptor(writer);
      assert.ok(fd >= 0, moved("node", "net.Socket's _handle.fd", "src/net/socket-write.ts"));
      // The descriptor is the socket's: what is written to it arrives at the far end.
      require("node:fs").writeSync(fd, Buffer.from("canary"));
      assert.equal(
        (await readExactly(reader, 6)).toString(),
        "canary",
        moved("node", "net.Socket's _handle.fd", "src/net/socket-write.ts"),
      );
    } finally {
      close();
    }
  });

  it("Node: a socket's own write, end and _destroy, replaced while the writer thread holds it (src/net/writer-thread.ts)", async () => {
    const { writer, close } = await connectedPair();
    try {
      const internal = "a net.Socket's write/end/_destroy replaced on the instance";
      const original = writer._destroy;
      let destroyCalled = false;
      let finish: ((error?: Error | null) => void) | undefined;
      writer._destroy = (error, callback) => {
        destroyCalled = true;
        finish = () => original.call(writer, error, callback);
      };
      writer.destroy();
      assert.ok(destroyCalled, moved("node", internal, "src/net/writer-thread.ts"));
      assert.ok(writer.destroyed, moved("node", internal, "src/net/writer-thread.ts"));
      // The socket closes once the held destroy goes on.
      writer._destroy = original;
      const closed = once(writer, "close");
      finish?.();
      await closed;
    } finally {
      close();
    }
  });

  it("Node: a TCP handle's readStop, for a socket whose close waits on the writer thread (src/net/writer-thread.ts)", async () => {
    const { writer, close } = await connectedPair();
    try {
      const handle = (writer as unknown as { _handle?: { reading?: boolean; readStop?: unknown } })._handle;
      const internal = "a net.Socket's _handle.readStop() and _handle.reading";
      assert.equal(typeof handle?.readStop, "function", moved("node", internal, "src/net/writer-thread.ts"));
      assert.equal(handle?.reading, true, moved("node", internal, "src/net/writer-thread.ts"));
    } finally {
      close();
    }
  });

  it("ws: an accepted WebSocket's TCP socket as _socket (src/net/batched-sends.ts)", async () => {
    const server = http.createServer();
    const wss = new WebSocketServer({ noServer: true });
    let upgraded: Duplex | undefined;
    server.on("upgrade", (request, socket, head) => {
      upgraded = socket;
      wss.handleUpgrade(request, socket, head, (ws) => wss.emit("connection", ws));
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    const accepted = once(wss, "connection") as Promise<[WebSocket]>;
    const far = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const [[ws]] = await Promise.all([accepted, once(far, "open")]);
      const socket = (ws as unknown as { _socket?: Socket })._socket;
      assert.equal(socket, upgraded, moved("ws", "WebSocket's _socket", "src/net/batched-sends.ts"));
    } finally {
      far.terminate();
      wss.close();
      server.closeAllConnections();
      server.close();
    }
  });

  it("Colyseus: an SDK client's ws WebSocket as ref and every frame sent through raw (src/net/batched-sends.ts)", () => {
    const ws = { readyState: WebSocket.OPEN, send: () => {} } as unknown as WebSocket;
    const client = new WebSocketClient("canary", ws);
    const internal = "WebSocketClient's ref and raw";
    assert.equal(client.ref, ws, moved("@colyseus/ws-transport", internal, "src/net/batched-sends.ts"));
    client.state = ClientState.JOINED;
    const sent: Uint8Array[] = [];
    client.raw = (data) => void sent.push(data);
    client.send("canary", { n: 1 });
    client.enqueueRaw(new Uint8Array([1, 2, 3]));
    assert.equal(sent.length, 2, moved("@colyseus/ws-transport", internal, "src/net/batched-sends.ts"));
  });
});
