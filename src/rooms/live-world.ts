import { type IRoomCache, matchMaker } from "@colyseus/core";
import { AGENTS_WORLD } from "../agents/agent-connection.js";
import { answerInWorlds } from "../agents/requests.js";
import type { PlayerSync } from "../game/world-types.js";
import { type LiveWorld, NOT_DURABLE_YET } from "../ports/live-world.js";
import type { WorldPort } from "../ports/world-port.js";
import { ServiceError } from "../protocol/errors.js";
import { ListingsUnreachableError } from "../protocol/listings-unreachable.js";
import {
  findWorld as findListedWorld,
  listWorlds,
  openWorld as openListedWorld,
  summarizeWorlds,
} from "./world-listing.js";

/** An agent request may join an agent to the world or write to the database: more than a status read. */
const AGENT_REQUEST_TIMEOUT_MS = 10_000;

/**
 * The REST API's view of the running worlds (WorldPort), through the matchmaker (so it works across
 * processes). `storedAgentWorlds` reads from the database, which every process shares, the worlds the
 * stored agents play in: no one world's process has to answer for the others'.
 */
export const roomLiveWorld = (storedAgentWorlds: () => Promise<number[]>): LiveWorld => ({
  async status(id = 1) {
    const world = await findWorld(id);
    return world && callWorld(world, "liveStatus", []);
  },
  worlds: (count, capacity) => unlessUnreachable(summarizeWorlds(count, capacity)),
  async worldOf(characterId) {
    for (const [id, world] of await runningWorlds()) {
      if (await callWorld(world, "plays", [characterId])) return id;
    }
    return undefined;
  },
  // A character plays in one world at a time: at most one of them has it; each is asked.
  async player(characterId) {
    const answers = await Promise.all(
      [...(await runningWorlds()).values()].map((world) => callWorld(world, "livePlayer", [characterId])),
    );
    if (answers.includes(NOT_DURABLE_YET))
      throw new ServiceError("unavailable", "the world is waiting for its database; try again shortly");
    return answers.find((answer) => answer !== undefined && answer !== NOT_DURABLE_YET) as
      | PlayerSync
      | undefined;
  },
  async renamed(characterId, name) {
    for (const world of (await runningWorlds()).values())
      await callWorld(world, "renamePlayer", [characterId, name]);
  },
  async agents(request) {
    // Each world's listing, looked up once for the request.
    const listings = new Map<number, IRoomCache>();
    const open = async (id: number) => {
      const listing = listings.get(id) ?? (await openWorld(id));
      listings.set(id, listing);
      return listing;
    };
    return answerInWorlds(
      request,
      () => openAgentWorlds(open, storedAgentWorlds),
      async (id, asked) => callWorld(await open(id), "answerAgents", [asked], AGENT_REQUEST_TIMEOUT_MS),
    );
  },
});

/**
 * The worlds whose agents answer, each opened where it runs nowhere (its agents then run): world 1,
 * where the configured agents play, and every world a stored agent plays in.
 */
async function openAgentWorlds(
  open: (id: number) => Promise<IRoomCache>,
  storedAgentWorlds: () => Promise<number[]>,
): Promise<number[]> {
  const worlds = [...new Set([AGENTS_WORLD, ...(await storedAgentWorlds())])].sort((a, b) => a - b);
  await Promise.all(worlds.map(open));
  return worlds;
}

/** The world's listing; 503 `unavailable`, with the server's own message, while Redis cannot be reached. */
const findWorld = (id?: number) => unlessUnreachable(findListedWorld(id));
const openWorld = (id: number) => unlessUnreachable(openListedWorld(id));
const runningWorlds = () => unlessUnreachable(listWorlds());

async function unlessUnreachable<T>(lookup: Promise<T>): Promise<T> {
  try {
    return await lookup;
  } catch (error) {
    if (error instanceof ListingsUnreachableError) throw new ServiceError("unavailable", error.message);
    throw error;
  }
}

type WorldMethod = "liveStatus" | "livePlayer" | "renamePlayer" | "answerAgents" | "plays";

/**
 * How long a call to another process goes unanswered before that process is checked (Colyseus's short
 * remote-call timeout): a call that may take longer does not wait out its own timeout on a dead one.
 */
const CHECK_PROCESS_AFTER_MS = 2000;

/** What a client is told when the process running its world does not answer, over REST and /ws alike. */
export const WORLD_UNREACHABLE_MESSAGE = "the world's server process cannot be reached; retry later";

const unreachable = () => new ServiceError("unavailable", WORLD_UNREACHABLE_MESSAGE);

/**
 * Calls the world wherever it runs. When the call fails, or goes unanswered while the world's process is
 * found gone, the process found gone has its world unlisted (so that the next request opens it again),
 * and the client gets 503.
 */
async function callWorld<M extends WorldMethod>(
  world: IRoomCache,
  method: M,
  args: Parameters<WorldPort[M]>,
  timeoutMs?: number,
): Promise<Awaited<ReturnType<WorldPort[M]>>> {
  const call = matchMaker.remoteRoomCall<WorldPort>(world.roomId, method, args, timeoutMs);
  if (world.processId === matchMaker.processId) return call;
  try {
    const long = timeoutMs !== undefined && timeoutMs > CHECK_PROCESS_AFTER_MS;
    return await (long ? unlessGone(world.processId, call) : call);
  } catch (error) {
    if (error instanceof ServiceError || (await matchMaker.healthCheckProcessId(world.processId)))
      throw error;
    throw unreachable();
  }
}

/** The call's outcome, or 503 as soon as its process, unanswering for a while, is found gone. */
function unlessGone<T>(processId: string, call: Promise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const check = setTimeout(() => {
      matchMaker.healthCheckProcessId(processId).then(
        (alive) => alive || reject(unreachable()),
        () => {},
      );
    }, CHECK_PROCESS_AFTER_MS);
    call.then(resolve, reject).finally(() => clearTimeout(check));
  });
}
