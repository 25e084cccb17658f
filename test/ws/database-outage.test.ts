import assert from "node:assert/strict";
import { issueAnonymousToken } from "../../src/auth/tokens.js";
import { postgresUrl } from "../support/databases.js";
import { sleep } from "../support/players.js";
import { type ServerBehindProxy, startServerBehindProxy, type TestServer } from "../support/server.js";
import type { TcpProxy } from "../support/tcp.js";
import { connectNewPlayer, WsClient, type WsPlayer } from "../support/ws-client.js";

describe("/ws logins and trades while PostgreSQL is down (a TCP proxy in front of it)", function () {
  this.timeout(60_000);
  let server: TestServer;
  let proxy: TcpProxy;
  let behind: ServerBehindProxy | undefined;
  const clients: WsClient[] = [];

  before(async function () {
    if (!postgresUrl) this.skip();
    behind = await startServerBehindProxy(postgresUrl, {
      WORLD_TICK_MS: "100",
    });
    ({ server, proxy } = behind);
  });
  afterEach(async () => {
    proxy?.up();
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
  });
  after(() => behind?.stop());

  const player = async (): Promise<WsPlayer> => {
    const joined = await connectNewPlayer(server);
    clients.push(joined.client);
    return joined;
  };
  const connect = async (token: string) => {
    const client = await WsClient.connect(server.wsUrl, { header: token });
    clients.push(client);
    return client;
  };

  it("tells a new login to come back later, with `unavailable` and close 4503, not join_failed", async () => {
    const { token } = await issueAnonymousToken(server.runtime.jwtSecret);
    proxy.down();
    const client = await connect(token);
    const refusal = await client.first();
    assert.deepEqual([refusal.event, refusal.data.code], ["error", "unavailable"]);
    assert.equal((await client.closed).code, 4503);
    proxy.up();
    const again = await connect(token);
    assert.equal(
      (await again.first()).event,
      "player:sync",
      "the same login, retried once the database is back",
    );
  });

  it("gives a player whose seat is kept its seat back from memory while the database is down", async () => {
    const dropped = await player();
    dropped.client.socket.terminate();
    await sleep(300);
    proxy.down();
    const back = await connect(dropped.token);
    const greeting = await back.first();
    assert.equal(greeting.event, "player:sync", JSON.stringify(greeting));
    assert.equal(greeting.data.id, dropped.id);
    assert.deepEqual(greeting.data.inventory, dropped.sync.inventory);
  });

  it("lets both players into a trade started while the database is down, and ends it for both", async () => {
    const [alice, bob] = [await player(), await player()];
    proxy.down();
    const incoming = bob.client.next("tradeIncoming");
    alice.client.send("tradeRequest", { targetPlayerId: bob.id });
    const { tradeId } = (await incoming).data;
    const opened = [alice, bob].map(({ client }) =>
      client.next("tradeUpdated", (data) => data.tradeId === tradeId),
    );
    bob.client.send("tradeRequestRespond", { tradeId, accept: true });
    await Promise.all(opened);
    const ended = [alice, bob].map(({ client }) =>
      client.next("tradeCancelled", (data) => data.tradeId === tradeId),
    );
    alice.client.send("tradeCancel", { tradeId });
    const reasons = (await Promise.all(ended)).map(({ data }) => data.reason);
    assert.deepEqual(reasons, ["cancelled", "cancelled"]);
  });
});
