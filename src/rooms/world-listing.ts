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

/** As long as the matchmaker waits for a concurrent creation, then twice that before the lock lapses. */
const ANNOUNCEMENT_WAIT_MS = 500;
const LOCK_EXPIRY_SECONDS = 1;

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
