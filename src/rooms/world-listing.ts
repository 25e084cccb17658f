// Where the one world runs, across processes: its listing in the matchmaker, and its creation.
import { type IRoomCache, matchMaker } from "@colyseus/core";

const WORLD = "world";

/** The world's listing (its room id, process and public address), or undefined when none runs. */
export async function findWorld(): Promise<IRoomCache | undefined> {
  const [world] = await matchMaker.query({ name: WORLD });
  return world;
}

/**
 * The world's listing, creating the world in this process first when none runs. The server opens it at
 * start, so that its NPCs and agents run before any player comes and every later join finds it; a /ws
 * connection or an agent request that finds it missing (its process died) opens it again where it is.
 *
 * Creation takes part in the matchmaker's own joinOrCreate lock (the `ch:<room>` counter and the
 * `concurrent:<room>:<lock id>` announcement of @colyseus/core's MatchMaker, with the empty lock id of a
 * room without filters): a player's join that finds no world at the same moment waits for this one and
 * joins it, instead of making a second world; and this waits for a join that is making one.
 */
export async function openWorld(): Promise<IRoomCache> {
  const running = await findWorld();
  if (running) return running;
  // A process shutting down would load a world only for the matchmaker to discard it.
  if (matchMaker.state === matchMaker.MatchMakerState.SHUTTING_DOWN)
    throw new Error("this server is shutting down: it opens no world");
  const { presence } = matchMaker;
  const lock = `ch:${WORLD}`;
  const announcements = `concurrent:${WORLD}:`;
  const others = (await presence.hincrbyex(lock, "", 1, LOCK_EXPIRY_SECONDS)) - 1;
  try {
    if (others > 0) await announced(announcements);
    const world = (await findWorld()) ?? (await matchMaker.handleCreateRoom(WORLD, {}));
    presence.publish(announcements, world.roomId);
    return world;
  } finally {
    await presence.hincrbyex(lock, "", -1, LOCK_EXPIRY_SECONDS);
  }
}

/**
 * As long as the matchmaker waits for a concurrent creation (its own setting, which @colyseus/core does
 * not export), then twice that before the lock lapses.
 */
const WAIT_SECONDS = Number(process.env.COLYSEUS_MAX_CONCURRENT_CREATE_ROOM_WAIT_TIME || 0.5);
const ANNOUNCEMENT_WAIT_MS = WAIT_SECONDS * 1000;
const LOCK_EXPIRY_SECONDS = WAIT_SECONDS * 2;

/** Resolves when a room id is published on `channel`, or after the matchmaker's own wait. */
function announced(channel: string): Promise<void> {
  const { presence } = matchMaker;
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      presence.unsubscribe(channel, done);
      resolve();
    };
    const timer = setTimeout(done, ANNOUNCEMENT_WAIT_MS);
    void presence.subscribe(channel, done);
  });
}

/** Where a process says that the world it held has closed. */
const CLOSED_CHANNEL = "world:closed";
/** The processes told that the world closed wait up to this long, at random, so that one opens it. */
const REOPEN_JITTER_MS = 500;

/** Tells the other processes that the world this one held has closed (a graceful shutdown, say). */
export function announceWorldClosed(): void {
  matchMaker.presence.publish(CLOSED_CHANNEL, matchMaker.processId);
}

/**
 * Opens the world here when another process says that its world closed, so that the world and its
 * agents run on through a rolling restart without waiting for a player to come. The processes told wait
 * a random moment first; should two open one at once all the same, the world lease closes the first.
 */
export async function reopenWorldWhenClosedElsewhere(onError: (error: unknown) => void): Promise<void> {
  await matchMaker.presence.subscribe(CLOSED_CHANNEL, (from: string) => {
    if (from === matchMaker.processId) return;
    setTimeout(() => {
      if (matchMaker.state !== matchMaker.MatchMakerState.READY) return;
      openWorld().catch(onError);
    }, Math.random() * REOPEN_JITTER_MS).unref();
  });
}
