// Where the numbered worlds run, across processes: their listings in the matchmaker, and their creation.
import { type IRoomCache, LocalPresence, matchMaker } from "@colyseus/core";
import type { WorldSummary } from "../ports/live-world.js";

const WORLD = "world";

/**
 * The join option, and the listing's field, that names a world: the room "world" is filtered by it
 * (Colyseus's filterBy), so each numbered world is one room, listed with `metadata.world`.
 */
export const WORLD_FILTER = "world";

/** The world's listing (its room id, process and public address), or undefined when it runs nowhere. */
export async function findWorld(world = 1): Promise<IRoomCache | undefined> {
  const [listing] = await matchMaker.query({ name: WORLD, [WORLD_FILTER]: world } as Partial<IRoomCache>);
  return listing;
}

/** Every running world's listing, by world id. */
export async function listWorlds(): Promise<Map<number, IRoomCache>> {
  const listings = new Map<number, IRoomCache>();
  for (const listing of await matchMaker.query({ name: WORLD })) {
    const id = worldIdOf(listing);
    if (id !== undefined && !listings.has(id)) listings.set(id, listing);
  }
  return listings;
}

/** The world id a listing names (a room listed before worlds were numbered is world 1). */
export function worldIdOf(listing: IRoomCache): number | undefined {
  const id = (listing.metadata as Record<string, unknown> | undefined)?.[WORLD_FILTER];
  return id === undefined ? 1 : typeof id === "number" ? id : undefined;
}

/** Worlds 1..count, with their clients as the matchmaker lists them (none where a world does not run yet). */
export async function summarizeWorlds(count: number, capacity: number): Promise<WorldSummary[]> {
  const listings = await listWorlds();
  return Array.from({ length: count }, (_, index) => {
    const id = index + 1;
    const playersOnline = listings.get(id)?.clients ?? 0;
    return { id, playersOnline, capacity, full: playersOnline >= capacity };
  });
}

/** The least full world that is not full (the lowest id of equals), or undefined when all are full. */
export function leastFull(worlds: readonly WorldSummary[]): number | undefined {
  let chosen: WorldSummary | undefined;
  for (const world of worlds) {
    if (world.full) continue;
    if (!chosen || world.playersOnline < chosen.playersOnline) chosen = world;
  }
  return chosen?.id;
}

/**
 * The world's listing, creating the world in this process first when it runs nowhere. The server opens it at
 * start, so that its NPCs and agents run before any player comes and every later join finds it; a /ws
 * connection or an agent request that finds it missing (its process died) opens it again where it is.
 *
 * Creation takes part in the matchmaker's own joinOrCreate lock (the `ch:<room>` counter and the
 * `concurrent:<room>:<lock id>` announcement of @colyseus/core's MatchMaker, with the lock id its
 * getLockId makes of the filter, `world:<id>`): a player's join that finds no such world at the same
 * moment waits for this one and joins it, instead of making a second one; and this waits for a join
 * that is making one.
 */
export async function openWorld(world = 1): Promise<IRoomCache> {
  const running = (await findWorld(world)) ?? (await listedElsewhere(world));
  if (running) return running;
  // A process shutting down would load a world only for the matchmaker to discard it.
  if (matchMaker.state === matchMaker.MatchMakerState.SHUTTING_DOWN)
    throw new Error("this server is shutting down: it opens no world");
  const { presence } = matchMaker;
  const lock = `ch:${WORLD}`;
  const lockId = `${WORLD_FILTER}:${world}`;
  const announcements = `concurrent:${WORLD}:${lockId}`;
  const others = (await presence.hincrbyex(lock, lockId, 1, LOCK_EXPIRY_SECONDS)) - 1;
  try {
    if (others > 0) await announced(announcements);
    const listing =
      (await findWorld(world)) ?? (await matchMaker.handleCreateRoom(WORLD, { [WORLD_FILTER]: world }));
    presence.publish(announcements, listing.roomId);
    return listing;
  } finally {
    await presence.hincrbyex(lock, lockId, -1, LOCK_EXPIRY_SECONDS);
  }
}

/**
 * As long as the matchmaker waits for a concurrent creation (its own setting, which @colyseus/core does
 * not export), then twice that before the lock lapses.
 */
const WAIT_SECONDS = Number(process.env.COLYSEUS_MAX_CONCURRENT_CREATE_ROOM_WAIT_TIME || 0.5);
const ANNOUNCEMENT_WAIT_MS = WAIT_SECONDS * 1000;
const LOCK_EXPIRY_SECONDS = WAIT_SECONDS * 2;

/**
 * Resolves when a room id is published on `channel`, or after the matchmaker's own wait; `ask` runs once
 * the channel is listened to.
 */
function announced(channel: string, ask?: () => Promise<unknown>): Promise<void> {
  const { presence } = matchMaker;
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      presence.unsubscribe(channel, done);
      resolve();
    };
    const timer = setTimeout(done, ANNOUNCEMENT_WAIT_MS);
    presence
      .subscribe(channel, done)
      .then(ask)
      .catch(() => {});
  });
}

/**
 * Redis shares pub/sub across its databases, while a deployment's listings live in one of them: the
 * channels below carry the database's number (none for database 0), so that deployments, or test
 * suites, sharing a Redis server with a database each do not hear each other's worlds.
 */
let channelScope = "";

/** Scopes this process's world channels to the database of `redisUrl` (if any); called as the server starts. */
export function scopeWorldChannels(redisUrl: string | undefined): void {
  const database = redisUrl ? Number(new URL(redisUrl).pathname.slice(1) || 0) : 0;
  channelScope = database ? `:db${database}` : "";
}

const closedChannel = () => `world:closed${channelScope}`;
/** Where a process about to open a world that runs nowhere asks the others to list their rooms again. */
const relistChannel = () => `world:relist${channelScope}`;
/** Where the process holding a world answers that request. */
const listedChannel = (world: number) => `world:listed${channelScope}:${world}`;

interface RelistRequest {
  from: string;
  world: number;
}

/**
 * Before a process opens a world that Redis lists nowhere, the others list their rooms again, and the
 * one holding that world says so: Redis may have lost its listings (a restart that kept nothing, a
 * failover) while that world runs on, and a second opening's lease would close it with its players.
 * Each process relists its own rooms when it reconnects to Redis, but another process's join may come
 * first. Waits up to the matchmaker's own wait; undefined when no process holds the world.
 */
async function listedElsewhere(world: number): Promise<IRoomCache | undefined> {
  const { presence } = matchMaker;
  if (presence instanceof LocalPresence) return undefined;
  const request: RelistRequest = { from: matchMaker.processId, world };
  await announced(listedChannel(world), () => presence.publish(relistChannel(), request));
  return findWorld(world);
}

/** Answers other processes' relist requests (see listedElsewhere). */
export async function answerRelistRequests(onError: (error: unknown) => void): Promise<void> {
  await matchMaker.presence.subscribe(relistChannel(), ({ from, world }: RelistRequest) => {
    if (from === matchMaker.processId) return;
    void (async () => {
      await matchMaker.restoreMissingRoomCaches();
      const listing = await findWorld(world);
      if (listing?.processId === matchMaker.processId)
        await matchMaker.presence.publish(listedChannel(world), listing.roomId);
    })().catch(onError);
  });
}

/**
 * At start, a process opens the lowest-numbered world that runs nowhere, so that processes started one
 * after another hold one world each; a world no process opened so is opened by the first join to it.
 * Undefined when every world runs already.
 */
export async function openFreeWorld(count: number): Promise<IRoomCache | undefined> {
  const running = await listWorlds();
  for (let world = 1; world <= count; world++) if (!running.has(world)) return openWorld(world);
  return undefined;
}

/** The processes told that a world closed wait up to this long, at random, so that one opens it. */
const REOPEN_JITTER_MS = 500;

interface WorldClosed {
  from: string;
  world: number;
}

/** Tells the other processes that a world this one held has closed (a graceful shutdown, say). */
export function announceWorldClosed(world = 1): void {
  const closed: WorldClosed = { from: matchMaker.processId, world };
  matchMaker.presence.publish(closedChannel(), closed);
}

/**
 * Opens a world here when another process says that it closed, so that the world and its agents run on
 * through a rolling restart without waiting for a player to come. The processes told wait a random
 * moment first; should two open one at once all the same, the world's lease closes the first.
 */
export async function reopenWorldWhenClosedElsewhere(onError: (error: unknown) => void): Promise<void> {
  await matchMaker.presence.subscribe(closedChannel(), (closed: WorldClosed | string) => {
    // An older process announces its process id alone, for the one world there was.
    const { from, world } = typeof closed === "string" ? { from: closed, world: 1 } : closed;
    if (from === matchMaker.processId) return;
    setTimeout(() => {
      if (matchMaker.state !== matchMaker.MatchMakerState.READY) return;
      openWorld(world).catch(onError);
    }, Math.random() * REOPEN_JITTER_MS).unref();
  });
}
