// Which planner the agents use: a language model when one is configured, each agent with its own
// bounds (ModelPlanner) and all waiting out the provider's rate limit together; the rules otherwise.
import type { Config } from "../../config/config.js";
import type { Logger } from "../../telemetry/logger.js";
import { ModelPlanner } from "./model-planner.js";
import { chooseModel } from "./models.js";
import { ProviderPause } from "./provider-pause.js";

export type ModelPlannerFactory = () => ModelPlanner;

/** A maker of each agent's model planner, and its label; undefined when no model is configured. */
export function modelPlanners(config: Config): { label: string; create: ModelPlannerFactory } | undefined {
  const chosen = chooseModel(config);
  if (!chosen) return undefined;
  const bounds = {
    callsPerMinute: config.AGENT_MODEL_CALLS_PER_MIN,
    maxTokens: config.AGENT_MODEL_MAX_TOKENS,
    timeoutMs: config.AGENT_MODEL_TIMEOUT_MS,
  };
  // The provider's rate limit is the key's: every agent waits out what it asks.
  const pause = new ProviderPause();
  return {
    label: chosen.label,
    create: () => new ModelPlanner(chosen.model, chosen.label, bounds, pause),
  };
}

/** Says at start-up who decides for the agents this process runs, so an operator sees which model. */
export function logPlanner(models: { label: string } | undefined, logger: Logger): void {
  logger.info(
    { planner: models?.label ?? "rules" },
    models
      ? `agents decide with the language model ${models.label}, their rules when it fails`
      : "agents decide by their rules (no language model configured: see README, Agents)",
  );
}
