import assert from "node:assert/strict";
import type { WorldUpdate } from "../../src/game/world-types.js";
import { joinAsNewPlayer, leave, type SdkPlayer } from "../support/players.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { connectNewPlayer, type WsPlayer } from "../support/ws-client.js";
import { seenEntities, waitFor } from "./world-helpers.js";

const ADMIN_CODE = "crowd-admin";
const CAP = 3;

/** The players a viewer holds now, its own among them, however it reads its view. */
interface Viewer {
  id: string;
  players(): Set<string>;
  /** What broke the cap so far: more than CAP other players held, or its own missing. */
  violations(): string[];
}

/**
 * The players a stream of world:updates leaves a client holding, and what broke the cap on the way
 * (more than CAP others, or its own player missing after any update).
 */
function heldPlayers(id: string, updates: readonly WorldUpdate[]) {
  const players = new Set<string>();
  const violations: string[] = [];
  for (const update of updates) {
    for (const entity of [...update.added, ...update.updated])
      if (entity.kind === "player") players.add(entity.id);
    for (const removed of update.removed) players.delete(removed);
    if (!players.has(id)) violations.push(`tick ${update.tick}: its own player is missing`);
    if (players.size > CAP + 1) violations.push(`tick ${update.tick}: ${players.size - 1} other players`);
  }
  return { players, violations };
}

describe("The view's cap on players (VIEW_MAX_PLAYERS), through real clients", function () {
  this.timeout(30000);
  let server: TestServer;
  const wsPlayers: WsPlayer[] = [];
  const sdkPlayers: SdkPlayer[] = [];

  before(async () => {
    server = await startTestServer({
      WORLD_TICK_MS: "100",
      ADMIN_CODE,
      VIEW_MAX_PLAYERS: String(CAP),
      RATE_LIMIT_AUTH_PER_MIN: "100",
    });
  });
  afterEach(async () => {
    await Promise.all(wsPlayers.splice(0).map((player) => player.client.close()));
    await Promise.all(sdkPlayers.splice(0).map((player) => leave(player.room)));
  });
  after(() => server?.stop());

  /** A viewer that reads world:update: what it holds is what its updates so far leave it. */
  function updatesViewer(id: string, updates: () => WorldUpdate[]): Viewer {
    return {
      id,
      players: () => heldPlayers(id, updates()).players,
      violations: () => heldPlayers(id, updates()).violations,
    };
  }

  async function wsViewer(): Promise<Viewer & { client: WsPlayer["client"] }> {
    const player = await connectNewPlayer(server);
    wsPlayers.push(player);
    const updates = () =>
      player.client.frames.filter(({ event }) => event === "world:update").map(({ data }) => data);
    return { ...updatesViewer(player.id, updates), client: player.client };
  }

  async function sdkMessagesViewer(): Promise<Viewer> {
    const player = await joinAsNewPlayer(server, undefined, { updates: "messages" });
    sdkPlayers.push(player);
    return updatesViewer(player.id, () => player.inbox.all("world:update"));
  }

  async function sdkStateViewer(): Promise<Viewer> {
    const player = await joinAsNewPlayer(server);
    sdkPlayers.push(player);
    const players = () =>
      new Set(
        seenEntities(player)
          .filter((entity) => entity.kind === "player")
          .map((entity) => entity.id),
      );
    const violations: string[] = [];
    player.room.onStateChange(() => {
      const seen = players();
      if (seen.size === 0) return;
      if (!seen.has(player.id)) violations.push("its own player is missing");
      if (seen.size > CAP + 1) violations.push(`${seen.size - 1} other players`);
    });
    return { id: player.id, players, violations: () => violations };
  }

  /** A /ws player moved (by the admin teleport) to a tile. */
  async function placed(x: number, z: number): Promise<WsPlayer> {
    const player = await connectNewPlayer(server);
    wsPlayers.push(player);
    player.client.send("player:chat", { message: `/admin ${ADMIN_CODE}` });
    await player.client.next("chat:message", (data) => data.fromPlayerId === "server");
    player.client.send("player:chat", { message: `/tp ${x} ${z}` });
    await player.client.received(
      ({ event, data }) => event === "player:sync" && data.position.x === x && data.position.z === z,
    );
    return player;
  }

  const sorted = (ids: Iterable<string>) => [...ids].sort();

  /**
   * The viewer stands on the spawn (32, 32); four others 2, 3, 6 and 9 tiles away, all in its view.
   * It holds the nearest three and itself; the farthest then walks up to 2 tiles away: it enters the
   * view, and the one 6 tiles away leaves it.
   */
  async function nearestThenWalker(viewer: Viewer): Promise<void> {
    const a = await placed(34, 32);
    const b = await placed(32, 35);
    const c = await placed(38, 32);
    const walker = await placed(32, 41);
    const nearest = [viewer.id, a.id, b.id, c.id];
    await waitFor(
      () => sorted(viewer.players()).join() === sorted(nearest).join(),
      `the viewer holds the nearest three: ${sorted(viewer.players())} against ${sorted(nearest)}`,
    );
    assert.ok(!viewer.players().has(walker.id), "the farthest is out of view");

    walker.client.send("player:move", { x: 32, z: 34 });
    const after = [viewer.id, a.id, b.id, walker.id];
    await waitFor(
      () => sorted(viewer.players()).join() === sorted(after).join(),
      `the walker came into view and the farthest left: ${sorted(viewer.players())} against ${sorted(after)}`,
    );
    assert.deepEqual(viewer.violations(), []);
  }

  it("shows a /ws client the nearest players and its own, one walking nearer in and the farthest out", async () => {
    const viewer = await wsViewer();
    await nearestThenWalker(viewer);
  });

  it("does so for an SDK client sent world:update messages", async () => {
    const viewer = await sdkMessagesViewer();
    await nearestThenWalker(viewer);
  });

  it("does so for an SDK client that reads the state", async () => {
    const viewer = await sdkStateViewer();
    await nearestThenWalker(viewer);
  });

  it("caps each client by its own nearest, whatever the others see", async () => {
    const viewer = await wsViewer();
    const a = await placed(36, 32);
    const b = await placed(34, 34);
    const c = await placed(28, 32);
    const d = await placed(40, 32);
    const fromA = updatesViewer(a.id, () =>
      a.client.frames.filter(({ event }) => event === "world:update").map(({ data }) => data),
    );
    // From the viewer on (32, 32): b 2 tiles away, a and c 4, d 8. From a on (36, 32): b 2, the viewer
    // and d 4, c 8. The margin a shown player keeps (2 tiles) cannot bridge a gap of 4.
    const holds = (who: Viewer, expected: string[]) => () =>
      sorted(who.players()).join() === sorted(expected).join();
    await waitFor(holds(viewer, [viewer.id, a.id, b.id, c.id]), "the viewer holds its nearest three");
    await waitFor(holds(fromA, [a.id, viewer.id, b.id, d.id]), "a holds its own nearest three");
    assert.deepEqual(viewer.violations(), []);
    assert.deepEqual(fromA.violations(), []);
  });
});
