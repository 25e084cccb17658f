import { type IRoomCache, matchMaker } from "@colyseus/core";
import { ApiError } from "../api/errors.js";
import type { LiveWorld } from "../api/live-world.js";
import type { WorldRoom } from "./WorldRoom.js";
import { findWorld, openWorld } from "./world-listing.js";

/** An agent request may join an agent to the world or write to the database: more than a status read. */
const AGENT_REQUEST_TIMEOUT_MS = 10_000;

/** The REST API's view of the running WorldRoom, through the matchmaker (so it works across processes). */
export const roomLiveWorld: LiveWorld = {
  async status() {
    const world = await findWorld();
    return world && callWorld(world, "liveStatus", []);
  },
  async player(characterId) {
    const world = await findWorld();
    return world && callWorld(world, "livePlayer", [characterId]);
  },
  async renamed(characterId, name) {
    const world = await findWorld();
    if (world) await callWorld(world, "renamePlayer", [characterId, name]);
  },
  async agents(request) {
    return callWorld(await openWorld(), "answerAgents", [request], AGENT_REQUEST_TIMEOUT_MS);
  },
};

type WorldMethod = "liveStatus" | "livePlayer" | "renamePlayer" | "answerAgents";

/**
 * Calls the world wherever it runs. When the call fails, the world's process is checked: one found gone
 * has its world unlisted (so that the next request opens it again), and the client gets 503.
 */
async function callWorld<M extends WorldMethod>(
  world: IRoomCache,
  method: M,
  args: Parameters<WorldRoom[M]>,
  timeoutMs?: number,
): Promise<Awaited<ReturnType<WorldRoom[M]>>> {
  try {
    return await matchMaker.remoteRoomCall<WorldRoom>(world.roomId, method, args, timeoutMs);
  } catch (error) {
    if (world.processId === matchMaker.processId || (await matchMaker.healthCheckProcessId(world.processId)))
      throw error;
    throw new ApiError(503, "unavailable", "the world's server process cannot be reached; retry later");
  }
}
