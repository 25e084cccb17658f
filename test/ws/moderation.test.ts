// An admin's moderation commands over /ws: /mute, /kick and /ban of a player in any world, kept across
// logins, and /announce to every player; refused to players who are not admins.
import assert from "node:assert/strict";
import { expectError, request } from "../api/support.js";
import { holdings, logOutMidFight } from "../support/moderation.js";
import { joinAsNewPlayer } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { connectPlayer, WsClient, type WsPlayer } from "../support/ws-client.js";

const ADMIN_CODE = "moderation-admin-code";

describe("moderation: /mute, /kick and /ban over /ws, across two worlds", function () {
  this.timeout(30000);
  let server: TestServer;
  const players: WsPlayer[] = [];
  const connect = async (world: number, token?: string) => {
    const player = await connectPlayer(server, world, token);
    players.push(player);
    return player;
  };

  before(async function () {
    // Opening the embedded database takes long on a busy machine.
    this.timeout(120000);
    server = await startTestServer({ WORLDS: "2", WORLD_TICK_MS: "100", ADMIN_CODE });
  });
  afterEach(async () => {
    await Promise.all(players.splice(0).map((player) => player.client.close()));
  });
  after(() => server?.stop());

  async function admin(world = 1): Promise<WsPlayer> {
    const player = await connect(world);
    player.client.send("player:chat", { message: `/admin ${ADMIN_CODE}` }, "admin");
    await player.client.next("chat:message", (_data, frame) => frame.id === "admin");
    return player;
  }

  /** Sends a command and returns its answer: the server's notice, or the error. */
  async function command(player: WsPlayer, message: string): Promise<{ event: string; data: any }> {
    const id = `command-${Math.random()}`;
    player.client.send("player:chat", { message }, id);
    return player.client.received((frame) => frame.id === id);
  }

  /** Whether a chat line of the player's is said (its own echo), or the error that refused it. */
  async function chat(player: WsPlayer, message: string): Promise<{ event: string; data: any }> {
    const id = `chat-${Math.random()}`;
    player.client.send("player:chat", { message }, id);
    return player.client.received(
      (frame) =>
        frame.id === id ||
        (frame.event === "chat:message" &&
          frame.data.fromPlayerId === player.id &&
          frame.data.message === message),
    );
  }

  it("mutes an account in the other world at once and across a new login, until an admin lifts it", async () => {
    const moderator = await admin(1);
    const bob = await connect(2);
    const muted = await command(moderator, `/MUTE ${bob.sync.name.toUpperCase()} 10`);
    assert.equal(muted.event, "chat:message", JSON.stringify(muted.data));
    assert.equal(muted.data.fromPlayerId, "server");
    assert.equal(muted.data.message, `${bob.sync.name} is muted for 10 minutes (in world 2).`);
    const told = await bob.client.received(
      (frame) => frame.event === "chat:message" && frame.data.fromPlayerId === "server",
    );
    assert.equal(told.data.message, "An admin muted you for 10 minutes.");
    const refused = await chat(bob, "can anyone hear me");
    assert.equal(refused.event, "error");
    assert.deepEqual([refused.data.code, refused.data.event], ["muted", "player:chat"]);
    assert.match(refused.data.message, /you can chat again in 10 minutes/);

    // A new login reads the mute from the account.
    await bob.client.close();
    const again = await connect(2, bob.token);
    assert.equal((await chat(again, "and now?")).data.code, "muted");
    const help = await command(again, "/help");
    assert.equal(help.event, "chat:message", "commands still answer a muted player");

    const lifted = await command(moderator, `/unmute ${bob.sync.name}`);
    assert.equal(lifted.data.message, `${bob.sync.name} may chat again (in world 2).`);
    await again.client.received(
      (frame) =>
        frame.event === "chat:message" &&
        frame.data.message === "An admin lifted your mute: you may chat again.",
    );
    const said = await chat(again, "thank you");
    assert.equal(said.event, "chat:message", JSON.stringify(said.data));
  });

  it("kicks a player: the connection closes with 4403, the character leaves at once, and may log in again", async () => {
    const moderator = await admin(1);
    const bob = await connect(1);
    await moderator.client.received(
      (frame) => frame.event === "world:update" && frame.data.added.some((e: any) => e.id === bob.id),
    );
    const kicked = await command(moderator, `/kick ${bob.sync.name}`);
    assert.equal(kicked.data.message, `${bob.sync.name} was removed from world 1; they may log in again.`);
    const closed = await bob.client.closed;
    assert.deepEqual(closed, { code: 4403, reason: "an admin removed this character from the world" });
    // No seat is kept for a reconnection: the player leaves the others' view within a tick or two.
    await moderator.client.received(
      (frame) => frame.event === "world:update" && frame.data.removed.includes(bob.id),
      2000,
    );
    const back = await connect(1, bob.token);
    assert.equal(back.id, bob.id);
    const offline = await command(moderator, "/kick Nobody Here");
    assert.deepEqual(
      [offline.data.code, offline.data.message],
      ["not_found", "No character is named Nobody Here."],
    );
  });

  it("kicks an SDK player too: the SDK's own reconnection finds no seat, and the character leaves", async () => {
    const moderator = await admin(1);
    const sdkPlayer = await joinAsNewPlayer(server, undefined, { world: 1 });
    const left = new Promise<number>((resolve) => sdkPlayer.room.onLeave((code) => resolve(code)));
    await moderator.client.received(
      (frame) => frame.event === "world:update" && frame.data.added.some((e: any) => e.id === sdkPlayer.id),
    );
    await command(moderator, `/kick ${sdkPlayer.sync.name}`);
    await moderator.client.received(
      (frame) => frame.event === "world:update" && frame.data.removed.includes(sdkPlayer.id),
      3000,
    );
    // The SDK tries to bring back a room it did not leave itself: with no seat kept, it gives up.
    const code = await left;
    assert.ok(code !== 1000 && code !== 4000, `the room was not left by the player (close code ${code})`);
    assert.equal(sdkPlayer.room.connection.isOpen, false);
  });

  /** Waits for the character to leave the bystander's view: out of the world, its fight over (a minute at most). */
  async function leaves(character: WsPlayer, bystander: WsPlayer): Promise<void> {
    await bystander.client.received(
      (frame) => frame.event === "world:update" && frame.data.removed.includes(character.id),
      15000,
    );
  }

  it("answers a kick of a character that logged out mid-fight truthfully: it leaves once the fight is over", async () => {
    const moderator = await admin(1);
    const bob = await connect(1);
    await logOutMidFight(server, bob, moderator);
    const kicked = await command(moderator, `/kick ${bob.sync.name}`);
    assert.equal(kicked.event, "chat:message", JSON.stringify(kicked.data));
    assert.equal(
      kicked.data.message,
      `${bob.sync.name} had logged out; in a fight, they stay in world 1 until it is over (a minute at most), then leave by themselves; they may log in again.`,
    );
    await leaves(bob, moderator);
    const back = await connect(1, bob.token);
    assert.equal(back.id, bob.id);
    assert.deepEqual(holdings(back.sync), holdings(bob.sync), "everything it held was saved as it left");
  });

  it("bans an account whose character logged out mid-fight: it leaves once the fight is over, and may not log in", async () => {
    const moderator = await admin(2);
    const watcher = await connect(1);
    const bob = await connect(1);
    await logOutMidFight(server, bob, watcher);
    const muted = await command(moderator, `/mute ${bob.sync.name} 5`);
    assert.equal(muted.data.message, `${bob.sync.name} is muted for 5 minutes.`);
    const banned = await command(moderator, `/ban ${bob.sync.name} 60`);
    assert.equal(
      banned.data.message,
      `${bob.sync.name} is banned for 60 minutes; in a fight, they stay in world 1 until it is over (a minute at most), then leave by themselves.`,
    );
    const refused = await WsClient.connect(`${server.wsUrl}?world=1`, { header: bob.token });
    assert.equal((await refused.received((frame) => frame.event === "error")).data.code, "banned");
    await leaves(bob, watcher);
    await command(moderator, `/unban ${bob.sync.name}`);
    const back = await connect(1, bob.token);
    assert.deepEqual(holdings(back.sync), holdings(bob.sync), "everything it held was saved as it left");
  });

  it("bans an account: its session closes, its logins are refused until an admin lifts the ban", async () => {
    const moderator = await admin(2);
    const bob = await connect(1);
    const banned = await command(moderator, `/ban ${bob.sync.name} 60`);
    assert.equal(
      banned.data.message,
      `${bob.sync.name} is banned for 60 minutes, and was removed from world 1.`,
    );
    assert.equal((await bob.client.closed).code, 4403);

    const refused = await WsClient.connect(`${server.wsUrl}?world=1`, { header: bob.token });
    const error = await refused.received((frame) => frame.event === "error");
    assert.equal(error.data.code, "banned");
    assert.match(
      error.data.message,
      /^an admin banned this account from the world until \d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
    );
    assert.equal((await refused.closed).code, 4403);

    assert.equal(
      (await command(moderator, `/unban ${bob.sync.name}`)).data.message,
      `${bob.sync.name} may log in again.`,
    );
    const back = await connect(1, bob.token);
    assert.equal(back.id, bob.id);
  });

  it("refuses a muted owner's messages to its agents, and a banned account's REST requests", async () => {
    const moderator = await admin(1);
    const bob = await connect(1);
    const created = await request(server, "/api/agents", {
      method: "POST",
      body: { name: `${bob.sync.name.slice(0, 9)}Bot` },
      token: bob.token,
    });
    assert.equal(created.status, 201, await created.clone().text());
    const { agentId } = await created.json();
    const say = () =>
      request(server, `/api/agents/${agentId}/message`, {
        method: "POST",
        body: { text: "cheap gold, whisper me" },
        token: bob.token,
      });
    assert.equal((await say()).status, 202, "before the mute its agent speaks for it");

    await command(moderator, `/mute ${bob.sync.name} 5`);
    const refused = await expectError(await say(), 403, "forbidden");
    assert.match(
      refused.message,
      /^an admin muted this account until .* UTC: its agents do not speak for it meanwhile$/,
    );
    assert.equal((await request(server, "/api/v1/player", { token: bob.token })).status, 200);

    await command(moderator, `/ban ${bob.sync.name} 5`);
    const banned = await expectError(
      await request(server, "/api/v1/player", { token: bob.token }),
      403,
      "forbidden",
    );
    assert.match(banned.message, /^an admin banned this account from the world until /);
    // Nor are its tokens renewed meanwhile.
    const renewal = await expectError(
      await request(server, "/api/v1/auth/anonymous", { method: "POST", token: bob.token }),
      403,
      "forbidden",
    );
    assert.match(renewal.message, /^an admin banned this account from the world until /);
  });

  it("announces an admin's line to every player of every world, as a server notice", async () => {
    const moderator = await admin(1);
    const [here, there] = [await connect(1), await connect(2)];
    const line = "The server restarts in  5 minutes: find a safe spot.";
    const answer = await command(moderator, `/announce ${line}`);
    assert.equal(answer.data.message, "Announced in world 1, 2.");
    for (const player of [here, there, moderator]) {
      const heard = await player.client.received(
        (frame) => frame.event === "chat:message" && frame.data.message === line,
      );
      assert.equal(heard.data.fromPlayerName, "Server");
    }
    const notAdmin = await command(here, "/announce free gold");
    assert.deepEqual([notAdmin.event, notAdmin.data.code], ["error", "forbidden"]);
    const empty = await command(moderator, "/announce   ");
    assert.deepEqual([empty.data.code, empty.data.message], ["bad_request", "Usage: /announce <message>"]);
  });

  it("runs moderation for admins only, and says how a command is written", async () => {
    const player = await connect(1);
    const bob = await connect(1);
    const notAdmin = await command(player, `/mute ${bob.sync.name} 5`);
    assert.deepEqual([notAdmin.event, notAdmin.data.code], ["error", "forbidden"]);
    const moderator = await admin(1);
    for (const [line, message] of [
      [`/mute ${bob.sync.name}`, "Usage: /mute <name> <minutes>"],
      [`/ban ${bob.sync.name} 0`, "A ban lasts 1 to 525600 minutes (a year)."],
      [`/mute ${bob.sync.name} 600000`, "A mute lasts 1 to 525600 minutes (a year)."],
      ["/kick", "Usage: /kick <name>"],
    ] as const) {
      const answer = await command(moderator, line);
      assert.deepEqual([answer.data.code, answer.data.message], ["bad_request", message], line);
    }
    assert.equal((await chat(bob, "still here")).event, "chat:message", "nothing was done to Bob");
  });
});
