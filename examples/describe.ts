// What both examples share: an anonymous sign-in, and a line of text for each event the server sends.
import type { AnonymousSignIn, ChatMessage, ErrorEvent, PlayerSync, WorldUpdate } from "./protocol.js";

/** A token for a fresh anonymous player, or undefined when the server gives none (the /ws channel then makes one up). */
export async function anonymousToken(serverUrl: string): Promise<string | undefined> {
  const httpUrl = new URL("/api/v1/auth/anonymous", serverUrl.replace(/^ws/, "http"));
  const response = await fetch(httpUrl, { method: "POST" });
  if (!response.ok) {
    console.log(`anonymous sign-in refused (${response.status}); connecting without a token`);
    return undefined;
  }
  const { token, playerId } = (await response.json()) as AnonymousSignIn;
  console.log(`signed in anonymously as player ${playerId}`);
  return token;
}

export function describe(event: string, data: unknown): string {
  switch (event) {
    case "player:sync": {
      const me = data as PlayerSync;
      return `I am ${me.name} at (${me.position.x},${me.position.z}), ${me.health}/${me.maxHealth} hp, ${me.coins} coins`;
    }
    case "world:update": {
      const update = data as WorldUpdate;
      const moved = update.updated.map(
        (entity) => `${entity.name}→(${entity.position.x},${entity.position.z})`,
      );
      return `tick ${update.tick}: ${update.added.length} appeared, ${update.removed.length} left${moved.length ? `, ${moved.join(" ")}` : ""}`;
    }
    case "chat:message": {
      const chat = data as ChatMessage;
      return `${chat.fromPlayerName} says: ${chat.message}`;
    }
    case "error": {
      const error = data as ErrorEvent;
      return `error ${error.code}: ${error.message}`;
    }
    default:
      return JSON.stringify(data);
  }
}
