import { matchMaker } from "@colyseus/core";
import type { LiveWorld } from "../api/live-world.js";
import type { WorldRoom } from "./WorldRoom.js";
import { findWorld, openWorld } from "./world-listing.js";

/** An agent request may join an agent to the world or write to the database: more than a status read. */
const AGENT_REQUEST_TIMEOUT_MS = 10_000;

/** The REST API's view of the running WorldRoom, through the matchmaker (so it works across processes). */
export const roomLiveWorld: LiveWorld = {
  async status() {
    const world = await findWorld();
    return world ? matchMaker.remoteRoomCall<WorldRoom>(world.roomId, "liveStatus") : undefined;
  },
  async player(characterId) {
    const world = await findWorld();
    return world
      ? matchMaker.remoteRoomCall<WorldRoom>(world.roomId, "livePlayer", [characterId])
      : undefined;
  },
  async renamed(characterId, name) {
    const world = await findWorld();
    if (world) await matchMaker.remoteRoomCall<WorldRoom>(world.roomId, "renamePlayer", [characterId, name]);
  },
  async agents(request) {
    const world = await openWorld();
    return matchMaker.remoteRoomCall<WorldRoom>(
      world.roomId,
      "answerAgents",
      [request],
      AGENT_REQUEST_TIMEOUT_MS,
    );
  },
};
