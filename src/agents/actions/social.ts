// The interface's social action (chatMessage) and goal actions (setGoal, idle).
import { z } from "zod";
import { XP_CAP } from "../../game/xp.js";
import { agentChatText } from "../agent-chat.js";
import { GOAL_TYPES } from "../brain.js";
import { defineAction, OK } from "./types.js";

export const chatMessage = defineAction({
  name: "chatMessage",
  description: "Say something in chat to the players nearby (not a chat command).",
  params: z.strictObject({ message: agentChatText }),
  speaks: true,
  run(runtime, { message }) {
    runtime.send({ event: "player:chat", data: { message: message.trim() } });
    return OK;
  },
});

export const setGoal = defineAction({
  name: "setGoal",
  description: `Set the agent's goal: ${GOAL_TYPES.join(", ")}, with the XP to gain (target).`,
  params: z.strictObject({ type: z.enum(GOAL_TYPES), target: z.int().positive().max(XP_CAP).optional() }),
  async run(runtime, { type, target }) {
    await runtime.setGoal(type, target);
    return OK;
  },
});

export const idle = defineAction({
  name: "idle",
  description: "Stop everything and stand idle, waiting for instructions.",
  params: z.strictObject({}),
  async run(runtime) {
    runtime.halt();
    await runtime.setGoal("idle");
    return OK;
  },
});
