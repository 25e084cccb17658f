// Every HTTP endpoint, for docs/api.md (`npm run docs:api` generates it; the bodies' JSON Schemas come
// from the zod schemas the routes validate with). test/api-doc.test.ts checks this list against the
// routes the source registers and against a running server.
import type { z } from "zod";
import { MOST_WORLDS } from "../config/config.js";
import { absentOwnersBody } from "../protocol/agent-process.js";
import { agentCreateBody, agentGoalBody, agentMessageBody } from "./agents.js";
import { characterNameBody } from "./validate.js";

export type Auth = "public" | "bearer" | "bearer, owner" | "metrics" | "agent process";

export interface Endpoint {
  method: "GET" | "POST" | "DELETE";
  /** `:name` marks a path parameter. */
  path: string;
  auth: Auth;
  summary: string;
  body?: z.ZodType;
  /** Status and what the body holds. */
  answers: string[];
  /** Errors of its own, besides those every endpoint of its kind may answer (see docs/api.md). */
  errors?: string[];
  /** A concrete path to request it by in the test (for paths a parameter cannot stand in). */
  example?: string;
}

const PLAYER =
  "the player: `id`, `name`, `position {x, z}`, `health`, `maxHealth`, `skills`, `inventory`, `equipment`, `coins`, `runEnergy` and the rest of `player:sync` (docs/protocol.md)";
const AGENT_IS_THERE = "`404 not_found`: no such agent";
const OWNER_ONLY = "`403 forbidden`: the caller does not own it (an admin controls the agents of `AGENTS`)";
const WORLD_AWAY = "`503 unavailable`: the world's process does not answer";
const NO_BODY = "`400 bad_request`: a body with anything in it (it takes none)";
const MUTED_OWNER =
  "`403 forbidden`: an admin muted the caller's account (`/mute`): its agents do not speak for it until the mute ends";

export const ENDPOINTS: Endpoint[] = [
  {
    method: "GET",
    path: "/health",
    auth: "public",
    summary: "Whether the server and its database answer.",
    answers: [
      '`200 {status: "ok", timestamp, version, database: "ok", playersOnline, worlds}`, `worlds` as `GET /api/v1/worlds` lists them (both left out when the worlds cannot be counted within a second), and in the process that runs the world `world: {database: "ok"}`; scaled out (`REDIS_URL`), `redis: "ok"`',
    ],
    errors: [
      '`503` with `status: "degraded"` beside the error body (`unavailable`) when the database does not answer within 2 s, or the world\'s writes fail or one has run over 1 s (`world: {database: "waiting", waitingMs}`), or scaled out, the process does not reach Redis (`redis: "unavailable"`: joins are refused meanwhile)',
    ],
  },
  {
    method: "GET",
    path: "/metrics",
    auth: "metrics",
    summary:
      "Prometheus metrics (text format), all named `tileworld_`: players online, tick phases, database writes, messages, refusals, trades, agents, the process.",
    answers: ["`200` Prometheus text"],
    errors: [
      "`401 unauthorized`: production, without the right bearer token",
      "`404 not_found`: production, `METRICS_TOKEN` unset",
    ],
  },
  {
    method: "GET",
    path: "/env.js",
    auth: "public",
    summary:
      "A script setting `window.env`: the public addresses (`PUBLIC_API_URL`, `PUBLIC_WS_URL`, `PUBLIC_CDN_URL`), `PUBLIC_APP_URL` and `PUBLIC_IDP_APP_ID`, for a frontend to load before its own code.",
    answers: ["`200` JavaScript"],
  },
  {
    method: "GET",
    path: "/",
    auth: "public",
    summary:
      "A page for people: what the server is, how many play, and links to the client (`/play`), the agent dashboard (`/dashboard`) and the docs.",
    answers: ["`200` HTML"],
  },
  {
    method: "GET",
    path: "/play",
    auth: "public",
    summary: "The web client: a page that plays through `/ws`, REST and `/env.js` like any client.",
    answers: ["`200` HTML"],
  },
  {
    method: "GET",
    path: "/dashboard",
    auth: "public",
    summary: "The agent dashboard: a page that controls the caller's agents through `/api/agents`.",
    answers: ["`200` HTML"],
  },
  {
    method: "GET",
    path: "/web/agent-actions.json",
    auth: "public",
    summary:
      "The agent actions, for the dashboard's menu: each one's `name`, what it does (`description`) and its parameters as JSON Schema (`params`), the body of `POST /api/agents/:agentId/actions/:name`.",
    answers: ["`200 [{name, description, params}]`, the 22 actions"],
  },
  {
    method: "GET",
    path: "/README.md",
    auth: "public",
    summary: "This server's README, as text (the pages link to it; `/docs/` serves the other documents).",
    answers: ["`200` text"],
  },
  {
    method: "GET",
    path: "/ws",
    auth: "public",
    summary: "The JSON WebSocket channel (docs/protocol.md); a plain request is told to upgrade.",
    answers: ["`101` WebSocket upgrade"],
    errors: ["`426 upgrade_required`: a plain HTTP request"],
  },
  {
    method: "GET",
    path: "/manifests/:file",
    auth: "public",
    summary:
      "The game data files (items, NPCs, areas, map); `items.json` is every file under `items/` in one list.",
    answers: ["`200` the file's JSON"],
    errors: ["`404 not_found`: no such file"],
    example: "/manifests/items.json",
  },
  {
    method: "GET",
    path: "/api/data/skill-unlocks",
    auth: "public",
    summary: "What each skill level unlocks, from the game data.",
    answers: ["`200` the unlocks by skill"],
  },
  {
    method: "POST",
    path: "/api/v1/auth/anonymous",
    auth: "public",
    summary:
      "Anonymous sign-in: a new identity with its account and a character of a generated name, or, with a still-valid anonymous token in `Authorization` (or the `renewalToken` issued with one, whose token has run out), new tokens for the same identity and character. Keep the renewal token as the identity's key: it is accepted here only, and a player back after its token ran out renews with it rather than start as a new player.",
    answers: [
      "`201 {token, playerId, expiresAt, renewalToken, renewalExpiresAt}`: an HS256 token valid for one hour, and a renewal token valid for 30 days",
    ],
    errors: [
      `${NO_BODY}: the renewal token goes in \`Authorization\``,
      "`401 unauthorized`: the token presented for renewal is not valid (a renewal token past its 30 days included)",
      "`403 forbidden`: an identity provider is configured (sign in with it), the token presented is not an anonymous identity's (an agent's), or its account is banned (`/ban`) until the ban ends",
      "`429 rate_limited`: past `RATE_LIMIT_AUTH_PER_MIN` (each request counts once, its token's failure included)",
    ],
  },
  {
    method: "GET",
    path: "/api/v1/player",
    auth: "bearer",
    summary: "The caller's character.",
    answers: [`\`200\` ${PLAYER}`],
    errors: [
      "`404 not_found`: the account has no character yet",
      "`503 unavailable`: the player's last changes are not durable within 1.5 s (the world waits for its database)",
    ],
  },
  {
    method: "POST",
    path: "/api/v1/player",
    auth: "bearer",
    summary: "Creates the caller's character, or renames it.",
    body: characterNameBody,
    answers: [
      `\`201\` ${PLAYER}: created`,
      "`200` the same: renamed (an online player shows it from the next tick)",
    ],
    errors: ["`409 conflict`: the name is taken (`Server` always is)"],
  },
  {
    method: "GET",
    path: "/api/v1/world",
    auth: "bearer",
    summary: "The state of the caller's world: the one its character plays in now, else world 1.",
    answers: ["`200 {world, tick, time, playersOnline, areas, entities}`"],
    errors: [WORLD_AWAY],
  },
  {
    method: "GET",
    path: "/api/v1/worlds",
    auth: "bearer",
    summary:
      "The numbered worlds (`WORLDS`): how many play in each, its capacity (`WORLD_CAPACITY`) and whether it is full.",
    answers: ["`200 {worlds: [{id, playersOnline, capacity, full}]}`"],
    errors: [WORLD_AWAY],
  },
  {
    method: "GET",
    path: "/api/v1/account",
    auth: "bearer",
    summary:
      "The caller's account: who the token names, and whether it is an admin's (the agent process asks it).",
    answers: [
      "`200 {accountId, isAdmin, mutedUntil}` (`mutedUntil`: until when an admin muted it, ISO 8601, or null)",
    ],
  },
  {
    method: "POST",
    path: "/api/v1/agent-process/absent-owners",
    auth: "agent process",
    summary:
      "Which of the given accounts are anonymous and unseen for `seconds`, or deleted since (see `ANONYMOUS_ACCOUNT_RETENTION_SECONDS`): the agent process (`npm run agents`) asks it to remove the agents of owners gone for good, as the server does with its own agents.",
    body: absentOwnersBody,
    answers: ["`200 {absent: [accountId]}`"],
    errors: ["`401 unauthorized`: not the agent process's token (it counts as an authentication attempt)"],
  },
  {
    method: "DELETE",
    path: "/api/v1/agent-process/agents/:agentId",
    auth: "agent process",
    summary:
      "Deletes the account of the agent process's agent `agentId` with its character and all it holds, which frees its name: the agent process asks it as it removes the agent. Trades it made stay on record without it.",
    answers: ["`204`: deleted, or there was none"],
    errors: [
      "`400 bad_request`: not an agent id",
      "`401 unauthorized`: not the agent process's token (it counts as an authentication attempt)",
      "`409 conflict`: an agent this server runs itself (`DELETE /api/agents/:agentId` removes those)",
    ],
  },
  {
    method: "GET",
    path: "/api/v1/world/online",
    auth: "bearer",
    summary: "How many players are in the worlds in all.",
    answers: ["`200 {playersOnline}`"],
    errors: [WORLD_AWAY],
  },
  {
    method: "GET",
    path: "/api/v1/world/areas",
    auth: "bearer",
    summary: "The world's areas.",
    answers: ["`200 {areas: [{id, name, bounds, ...}]}`"],
  },
  {
    method: "GET",
    path: "/api/characters/:id/skills",
    auth: "bearer",
    summary: "Any character's skills, as other players see them.",
    answers: ["`200 {characterId, skills, totalLevel, combatLevel}`"],
    errors: ["`404 not_found`: no such character", "`503 unavailable`: as `GET /api/v1/player`"],
  },
  {
    method: "GET",
    path: "/api/characters/:id/position",
    auth: "bearer",
    summary: "Any character's position.",
    answers: ["`200 {characterId, position {x, z}, areaId, online}`"],
    errors: ["`404 not_found`: no such character", "`503 unavailable`: as `GET /api/v1/player`"],
  },
  {
    method: "GET",
    path: "/api/agents",
    auth: "bearer",
    summary: "Every agent.",
    answers: [
      "`200 {agents: [{agentId, characterId, name, online, position, health, maxHealth, goal, currentAction, world, controllable}]}`: `goal` is null or `{type, progress}`; `world` is the numbered world it plays in; `controllable` says whether the caller may control it (its owner, or an admin); `unavailableWorlds: [n]` is added, those worlds' agents left out, while some worlds' processes do not answer",
    ],
    errors: [
      "`503 unavailable`: no world's process answers (world 1 and the worlds stored agents play in are asked)",
    ],
  },
  {
    method: "POST",
    path: "/api/agents",
    auth: "bearer",
    summary:
      "Starts an agent owned by the caller, playing a new character of that name in the world named (world 1 when none is).",
    body: agentCreateBody(MOST_WORLDS),
    answers: ["`201 {agentId, characterId, name}`"],
    errors: [
      "`400 bad_request`: the name breaks the rule, or `world` is not one of 1..WORLDS",
      "`409 conflict`: past `AGENTS_PER_ACCOUNT`, `AGENTS_PER_ADDRESS` or `AGENTS_MAX` (counted over every world), or the name is taken",
      WORLD_AWAY,
    ],
  },
  {
    method: "DELETE",
    path: "/api/agents/:agentId",
    auth: "bearer, owner",
    summary: "Stops an agent and deletes it with its character and items, which frees its name.",
    answers: ["`204`"],
    errors: [AGENT_IS_THERE, OWNER_ONLY, WORLD_AWAY],
  },
  {
    method: "GET",
    path: "/api/agents/mapping/:agentId",
    auth: "bearer",
    summary: "The character an agent plays.",
    answers: ["`200 {agentId, characterId, name}`"],
    errors: [AGENT_IS_THERE, WORLD_AWAY],
  },
  {
    method: "GET",
    path: "/api/agents/:agentId/goal",
    auth: "bearer",
    summary: "An agent's goal and its progress.",
    answers: ["`200 {goal, goalsPaused, availableGoals}`: `goal` is null or `{type, target, progress, ...}`"],
    errors: [AGENT_IS_THERE, WORLD_AWAY],
  },
  {
    method: "POST",
    path: "/api/agents/:agentId/goal",
    auth: "bearer, owner",
    summary: "Sets an agent's goal: `target` is XP to gain in the goal's skills (500 when absent).",
    body: agentGoalBody,
    answers: ["`200 {success: true, goal, goalsPaused, availableGoals}`"],
    errors: [AGENT_IS_THERE, OWNER_ONLY, WORLD_AWAY],
  },
  {
    method: "POST",
    path: "/api/agents/:agentId/goal/stop",
    auth: "bearer, owner",
    summary: "Stops the agent choosing goals itself (a goal set meanwhile is still pursued).",
    answers: ["`200 {success: true, goal, goalsPaused, availableGoals}`"],
    errors: [NO_BODY, AGENT_IS_THERE, OWNER_ONLY, WORLD_AWAY],
  },
  {
    method: "POST",
    path: "/api/agents/:agentId/goal/resume",
    auth: "bearer, owner",
    summary: "Lets the agent choose its goals again.",
    answers: ["`200 {success: true, goal, goalsPaused, availableGoals}`"],
    errors: [NO_BODY, AGENT_IS_THERE, OWNER_ONLY, WORLD_AWAY],
  },
  {
    method: "POST",
    path: "/api/agents/:agentId/message",
    auth: "bearer, owner",
    summary:
      "Has the agent run `text` as a command (a quick action's id, `drop all [item]`), pass it to its language model as an instruction (with one configured), or else say it in chat.",
    body: agentMessageBody,
    answers: ["`202 {accepted: true}`"],
    errors: [
      "`400 bad_request`: a chat command (a line starting with `/`): send those from your own connection",
      AGENT_IS_THERE,
      OWNER_ONLY,
      MUTED_OWNER,
      WORLD_AWAY,
    ],
  },
  {
    method: "GET",
    path: "/api/agents/:agentId/quick-actions",
    auth: "bearer",
    summary:
      "The quick actions an agent can run, each `{id, label, available, reason?}`: out of the world, only `stop` and `idle` are available.",
    answers: ["`200 {actions: [...]}`"],
    errors: [AGENT_IS_THERE, WORLD_AWAY],
  },
  {
    method: "POST",
    path: "/api/agents/:agentId/quick-actions/:actionId",
    auth: "bearer, owner",
    summary: "Runs a quick action.",
    answers: ["`202 {accepted: true}`"],
    errors: [
      NO_BODY,
      "`404 not_found`: no such agent or action",
      OWNER_ONLY,
      "`409 conflict`: the action is unavailable now (the message says why, as the list does)",
      WORLD_AWAY,
    ],
  },
  {
    method: "GET",
    path: "/api/agents/:agentId/state",
    auth: "bearer",
    summary: "All an agent knows, from its six state providers, and which planner decides for it.",
    answers: [
      "`200 {agentId, characterId, name, online, goal, goalsPaused, currentAction, gameState, inventory, nearbyEntities, skills, equipment, availableActions, planner, plannerReason}`: `plannerReason` says why the rules decide for an agent with a language model (its last failure, or why it cannot be asked now), null otherwise",
    ],
    errors: [AGENT_IS_THERE, WORLD_AWAY],
  },
  {
    method: "POST",
    path: "/api/agents/:agentId/actions/:name",
    auth: "bearer, owner",
    summary:
      "Runs one of the 22 agent actions (`moveTo`, `chopTree`, `bankWithdraw`, ...) with the body as its parameters.",
    answers: ["`200 {ok: true}` or `200 {ok: false, reason}`: why it cannot be done, for a person to act on"],
    errors: [
      "`400 bad_request`: parameters the action does not take",
      "`404 not_found`: no such agent or action",
      OWNER_ONLY,
      `${MUTED_OWNER} (\`chatMessage\`)`,
      WORLD_AWAY,
    ],
  },
];
