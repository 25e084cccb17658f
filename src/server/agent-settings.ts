import { sightingIntervalMs } from "../auth/sightings.js";
import type { Config } from "../config/config.js";

/** The agents' limits and pace as the configuration sets them, in whichever process runs the agents. */
export function agentSettings(config: Config) {
  return {
    tickMs: config.WORLD_TICK_MS,
    perAccount: config.AGENTS_PER_ACCOUNT,
    perAddress: config.AGENTS_PER_ADDRESS,
    ownerAbsenceSeconds: config.AGENT_OWNER_ABSENCE_SECONDS,
    sweepMs: sightingIntervalMs(config.AGENT_OWNER_ABSENCE_SECONDS),
    maxOwned: config.AGENTS_MAX,
    configured: config.AGENTS,
    worlds: config.WORLDS,
  };
}
