// The protocol's bodies of an agent's state (GET /api/agents/:agentId/state) and of its row in
// GET /api/agents, built from the providers.
import type { Agent } from "./agent.js";
import { gameStateProvider, provideState } from "./providers/index.js";

export function agentState(agent: Agent) {
  const context = agent.context();
  const { know } = context;
  return {
    agentId: know.agentId,
    characterId: know.characterId,
    name: know.name,
    online: know.online,
    goal: agent.goal(),
    goalsPaused: agent.record.goalsPaused,
    currentAction: know.currentAction,
    ...provideState(context),
    planner: agent.planner(),
    plannerReason: agent.plannerReason(),
  };
}

/**
 * What the list shows of each agent beyond the protocol's summary: enough for a dashboard's list (where it
 * is, its health, its goal and what it does), so one request every few seconds serves many agents.
 */
export function listedAgent(agent: Agent) {
  const context = agent.context();
  const game = gameStateProvider(context);
  const goal = agent.goal();
  return {
    online: context.know.online,
    position: game?.position ?? null,
    health: game?.health ?? null,
    maxHealth: game?.maxHealth ?? null,
    goal: goal && { type: goal.type, progress: goal.progress },
    currentAction: context.know.currentAction,
    /** The numbered world it plays in. */
    world: agent.record.world,
  };
}
