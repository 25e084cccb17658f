import { z } from "zod";
import { chatText, MAX_CHAT_LENGTH } from "../game/chat.js";
import { type GameError, gameError } from "../game/errors.js";

/**
 * Chat commands (`/admin`, `/give`, ...) are never run through an agent: it would try them as the agent,
 * from the server's own address, so a wrong `/admin` code would spend the server's attempts, not the
 * caller's, and a right one would make the agent's account an admin's. Its owner runs commands on a
 * connection of its own, where they count against it.
 */
const AGENT_COMMAND_REFUSAL = "An agent does not run chat commands: send commands from your own connection.";

/**
 * What an agent says in chat, whoever asked it (its owner's message or action, its language model): the
 * chat rule's line, or why it is refused.
 */
export function agentChatLine(text: string): string | GameError {
  const said = chatText(text);
  if (typeof said === "string" && said.startsWith("/"))
    return gameError("bad_request", AGENT_COMMAND_REFUSAL);
  return said;
}

/** A line for an agent to say, as a request's parameter: held to the chat rule, refused with its reason. */
export const agentChatText = z
  .string()
  .describe(`1 to ${MAX_CHAT_LENGTH} characters, not a chat command`)
  .superRefine((text, context) => {
    const said = agentChatLine(text);
    if (typeof said !== "string") context.addIssue({ code: "custom", message: said.message });
  });
