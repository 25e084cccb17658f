import { matchMaker } from "@colyseus/core";
import type { LiveWorld } from "../api/live-world.js";
import type { WorldRoom } from "./WorldRoom.js";

/** The REST API's view of the running WorldRoom, through the matchmaker (so it works across processes). */
export const roomLiveWorld: LiveWorld = {
  async status() {
    const roomId = await worldRoomId();
    return roomId ? matchMaker.remoteRoomCall<WorldRoom>(roomId, "liveStatus") : undefined;
  },
  async player(characterId) {
    const roomId = await worldRoomId();
    return roomId ? matchMaker.remoteRoomCall<WorldRoom>(roomId, "livePlayer", [characterId]) : undefined;
  },
  async renamed(characterId, name) {
    const roomId = await worldRoomId();
    if (roomId) await matchMaker.remoteRoomCall<WorldRoom>(roomId, "renamePlayer", [characterId, name]);
  },
};

async function worldRoomId(): Promise<string | undefined> {
  const [world] = await matchMaker.query({ name: "world" });
  return world?.roomId;
}
