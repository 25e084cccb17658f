// An admin's /ban of a player whose character a fight keeps in the world, met by a login while PostgreSQL
// is down: the world lets such a login take its seat back from memory, but never past a ban.
import assert from "node:assert/strict";
import { matchMaker } from "@colyseus/core";
import { postgresUrl } from "../support/databases.js";
import { fightARat, logOutMidFight } from "../support/moderation.js";
import { waitForAsync } from "../support/players.js";
import { type ServerBehindProxy, startServerBehindProxy, type TestServer } from "../support/server.js";
import type { TcpProxy } from "../support/tcp.js";
import { connectPlayer, WsClient, type WsPlayer } from "../support/ws-client.js";

const ADMIN_CODE = "moderation-outage-admin-code";

describe("/ban of a character a fight keeps, and logins while PostgreSQL is down (a TCP proxy in front of it)", function () {
  this.timeout(60_000);
  let server: TestServer;
  let proxy: TcpProxy;
  let behind: ServerBehindProxy | undefined;
  const clients: WsClient[] = [];

  before(async function () {
    if (!postgresUrl) this.skip();
    behind = await startServerBehindProxy(postgresUrl, {
      // Slow enough ticks that a fight (and the character it keeps) outlasts the test's steps.
      WORLD_TICK_MS: "200",
      // A world for each test: a rat one test's player fights does not swing at the next one's.
      WORLDS: "2",
      ADMIN_CODE,
    });
    ({ server, proxy } = behind);
  });
  afterEach(async () => {
    proxy?.up();
    await Promise.all(clients.splice(0).map((client) => client.close().catch(() => {})));
  });
  after(() => behind?.stop());

  const player = async (world: number): Promise<WsPlayer> => {
    const joined = await connectPlayer(server, world);
    clients.push(joined.client);
    return joined;
  };
  const connect = async (token: string, world: number) => {
    const client = await WsClient.connect(`${server.wsUrl}?world=${world}`, { header: token });
    clients.push(client);
    return client;
  };
  async function admin(): Promise<WsPlayer> {
    const moderator = await player(1);
    moderator.client.send("player:chat", { message: `/admin ${ADMIN_CODE}` }, "admin");
    await moderator.client.next("chat:message", (_data, frame) => frame.id === "admin");
    return moderator;
  }
  /** Sends an admin command and returns the server's notice. */
  async function command(moderator: WsPlayer, message: string): Promise<string> {
    const id = `command-${Math.random()}`;
    moderator.client.send("player:chat", { message }, id);
    const answer = await moderator.client.received((frame) => frame.id === id);
    assert.equal(answer.event, "chat:message", `${message}: ${JSON.stringify(answer.data)}`);
    return answer.data.message;
  }
  /** How a login of the token is refused: its error and close code (a greeting, should it be let in). */
  async function refusalOf(
    token: string,
    world: number,
  ): Promise<{ event: string; data: unknown; close?: number }> {
    const client = await connect(token, world);
    const { event, data } = await client.received(
      (frame) => frame.event === "error" || frame.event === "player:sync",
    );
    return event === "error" ? { event, data, close: (await client.closed).code } : { event, data };
  }

  /** The characters of the clients that joined the worlds of this process. */
  async function inWorld(): Promise<string[]> {
    const rooms = (await matchMaker.query({ name: "world" })).map(({ roomId }) =>
      matchMaker.getLocalRoomById(roomId),
    );
    return rooms.flatMap((room) => room?.clients.map((client) => client.auth?.characterId) ?? []);
  }

  it("refuses a banned player's login from memory as the database would, and lets it back after an unban", async () => {
    const moderator = await admin();
    const bob = await player(1);
    await logOutMidFight(server, bob, moderator);
    assert.match(await command(moderator, `/ban ${bob.sync.name} 60`), /stay in world 1 until it is over/);
    const byDatabase = await refusalOf(bob.token, 1);
    assert.equal((byDatabase.data as { code: string }).code, "banned");

    proxy.down();
    assert.deepEqual(await refusalOf(bob.token, 1), byDatabase, "the same refusal, ban end included");

    proxy.up();
    assert.equal(await command(moderator, `/unban ${bob.sync.name}`), `${bob.sync.name} may log in again.`);
    proxy.down();
    const back = await connect(bob.token, 1);
    // Let in from memory, the only way in now (its player:sync may wait for the world's held write).
    await waitForAsync(
      async () => (await inWorld()).includes(bob.id),
      "the login taking its seat from memory",
    );
    proxy.up();
    const greeting = await back.first();
    assert.equal(greeting.event, "player:sync", JSON.stringify(greeting.data));
    assert.equal(greeting.data.id, bob.id);
  });

  it("refuses the login from memory of a player a ban removed mid-fight, its character kept by the fight", async () => {
    const moderator = await admin();
    const bob = await player(2);
    await fightARat(bob);
    assert.equal(
      await command(moderator, `/ban ${bob.sync.name} 60`),
      `${bob.sync.name} is banned for 60 minutes, and was removed from world 2; in a fight, they stay in world 2 until it is over (a minute at most), then leave by themselves.`,
    );
    assert.equal((await bob.client.closed).code, 4403);
    proxy.down();
    const refused = await refusalOf(bob.token, 2);
    assert.equal(refused.event, "error", JSON.stringify(refused.data));
    assert.deepEqual([(refused.data as { code: string }).code, refused.close], ["banned", 4403]);
  });
});
