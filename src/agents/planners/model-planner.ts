// The language-model planner: the rule planner's peer. It offers the model the interface's 22 actions as tools
// and the providers' data as context; the model answers with one tool call (and may say something).
// Each call is bounded (calls a minute per agent, tokens, a timeout, the provider's asked wait); whatever
// goes wrong makes that decision the rules', with the reason.
import { APICallError, generateText, type LanguageModel, type Tool, tool } from "ai";
import { MAX_CHAT_LENGTH } from "../../game/chat.js";
import { AGENT_ACTIONS } from "../actions/index.js";
import { ACTION_NAMES, type ActionName, isActionName } from "../actions/types.js";
import type { Goal } from "../brain.js";
import type { AgentContext } from "../knowledge.js";
import { type NearbyEntity, provideState } from "../providers/index.js";
import { AnswerTooLargeError, wasTooLarge } from "./capped-fetch.js";
import type { CallOutcome, ProviderPause } from "./provider-pause.js";

export interface ModelBounds {
  callsPerMinute: number;
  maxTokens: number;
  timeoutMs: number;
}

/** What the model chose: an action (and maybe words for chat), only words, or nothing usable. */
export type ModelDecision =
  | { kind: "action"; name: ActionName; params: unknown; say?: string }
  | { kind: "say"; say: string }
  /** `answered`: the model read the input and answered (unusably); otherwise it was never asked, or failed. */
  | { kind: "fallback"; reason: string; answered: boolean };

/** What the model is told beside the state. */
export interface DecisionInput {
  context: AgentContext;
  goal: Goal | null;
  goalsPaused: boolean;
  /** The owner's messages since the last decision, oldest first. */
  instructions: readonly string[];
  /** The answers of its last few actions, so a refusal's reason can be acted on. */
  recent: readonly { action: string; result: string }[];
}

const SYSTEM = [
  "You control one character in a tile-based online world, as an autonomous agent playing by the same rules as people.",
  "Each turn you get its state (health, position, inventory, nearby entities, skills, equipment, the actions available now), its goal, and any instructions from its owner.",
  "Answer with exactly one tool call: the next action. Prefer actions listed as available. Entity ids come from nearbyEntities.",
  "Follow the owner's instructions when they are possible. When the owner wrote, also reply in one short sentence of plain text: it is said in chat.",
  "Keep the character alive: eat or flee when health is low, and fight only monsters it can beat.",
].join(" ");

const TOOLS: Record<string, Tool> = Object.fromEntries(
  ACTION_NAMES.map((name) => [
    name,
    tool({ description: AGENT_ACTIONS[name].description, inputSchema: AGENT_ACTIONS[name].params }),
  ]),
);

export class ModelPlanner {
  private readonly calls: number[] = [];

  constructor(
    private readonly model: LanguageModel,
    /** "<provider>:<model>". */
    readonly label: string,
    private readonly bounds: ModelBounds,
    /** When the provider may be asked again, shared by every agent on its key. */
    private readonly pause: ProviderPause,
  ) {}

  /** Whether a call fits in this agent's calls of the last minute, and the provider takes calls. */
  canCall(now = Date.now()): boolean {
    return this.whyNotCall(now) === undefined;
  }

  /** Why the model cannot be asked now, for its owner to read; undefined when it can. */
  whyNotCall(now = Date.now()): string | undefined {
    while (this.calls.length > 0 && now - this.calls[0]! >= 60_000) this.calls.shift();
    const resting = this.pause.left(now);
    if (resting > 0) return `the model's provider is not asked for ${Math.ceil(resting / 1000)} s more`;
    if (this.calls.length >= this.bounds.callsPerMinute)
      return `this minute's ${this.bounds.callsPerMinute} model calls are spent`;
    return undefined;
  }

  /** The model's decision, asked within the call's time limit; `given up` cuts the request short. */
  async decide(input: DecisionInput, givenUp?: AbortSignal): Promise<ModelDecision> {
    const wait = this.pause.left();
    if (wait > 0)
      return {
        kind: "fallback",
        reason: `the model's provider asked to wait: ${Math.ceil(wait / 1000)} s left`,
        answered: false,
      };
    if (!this.canCall())
      return {
        kind: "fallback",
        reason: `more than ${this.bounds.callsPerMinute} model calls a minute`,
        answered: false,
      };
    this.calls.push(Date.now());
    try {
      const result = await generateText({
        model: this.model,
        system: SYSTEM,
        prompt: describe(input),
        tools: TOOLS,
        maxOutputTokens: this.bounds.maxTokens,
        abortSignal: givenUp
          ? AbortSignal.any([AbortSignal.timeout(this.bounds.timeoutMs), givenUp])
          : AbortSignal.timeout(this.bounds.timeoutMs),
        maxRetries: 0,
      });
      this.pause.ended({ kind: "answered" });
      const say = chatReply(result.text);
      const [call] = result.toolCalls;
      if (!call)
        return say
          ? { kind: "say", say }
          : { kind: "fallback", reason: "the model chose no action", answered: true };
      if (!isActionName(call.toolName))
        return {
          kind: "fallback",
          reason: `the model asked for an unknown action "${call.toolName.slice(0, 40)}"`,
          answered: true,
        };
      // The SDK marks a call whose input does not fit the tool's schema; it is checked again here.
      const parsed = AGENT_ACTIONS[call.toolName].params.safeParse(call.input ?? {});
      if (("invalid" in call && call.invalid) || !parsed.success) {
        const issue = parsed.success ? undefined : parsed.error.issues[0];
        const why = issue ? ` (${issue.path.join(".") || "parameters"}: ${issue.message})` : "";
        return {
          kind: "fallback",
          reason: `the model gave ${call.toolName} parameters that do not fit${why}`,
          answered: true,
        };
      }
      return { kind: "action", name: call.toolName, params: parsed.data, ...(say && { say }) };
    } catch (error) {
      // A call its agent gave up on says nothing of the provider.
      if (!givenUp?.aborted) this.pause.ended(outcomeOf(error));
      return { kind: "fallback", reason: failureReason(error, this.bounds.timeoutMs), answered: false };
    }
  }
}

/** A failed call, for the provider's pause: an answer with its status, or none in time (or at all). */
function outcomeOf(error: unknown): CallOutcome {
  if (APICallError.isInstance(error) && error.statusCode !== undefined)
    return { kind: "status", status: error.statusCode, headers: error.responseHeaders };
  const silent =
    (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) ||
    (APICallError.isInstance(error) && error.statusCode === undefined);
  return silent ? { kind: "silent" } : { kind: "answered" };
}

/**
 * The model's text as one chat line: a reply of several lines (or a list) joined with spaces, and cut
 * to the chat's length between characters as people see them, never inside one.
 */
function chatReply(text: string): string | undefined {
  const line = text.replace(/\s+/gu, " ").trim();
  let reply = "";
  let count = 0;
  for (const { segment } of GRAPHEMES.segment(line)) {
    if (++count > MAX_CHAT_LENGTH) break;
    reply += segment;
  }
  return reply.trim() || undefined;
}

const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/**
 * What the provider said was wrong, from its error body (`error.message`, as OpenAI, Anthropic and Google
 * write it), cut short and with anything long enough to be a key or token taken out.
 */
function providerExplanation(error: InstanceType<typeof APICallError>): string | undefined {
  let said: unknown;
  try {
    const body = JSON.parse(error.responseBody ?? "") as { error?: unknown; message?: unknown };
    said =
      typeof body.error === "object" && body.error !== null
        ? (body.error as { message?: unknown }).message
        : (body.error ?? body.message);
  } catch {
    return undefined;
  }
  if (typeof said !== "string" || said.trim() === "") return undefined;
  const clean = said
    .replace(/[A-Za-z0-9_\-.]{24,}/g, "…")
    .replace(/\s+/g, " ")
    .trim();
  return clean.length > 160 ? `${clean.slice(0, 159)}…` : clean;
}

/** Why a call failed, in words that hold no key or header, and of the body only the provider's reason. */
function failureReason(error: unknown, timeoutMs: number): string {
  if (wasTooLarge(error)) return new AnswerTooLargeError().message;
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError"))
    return `the model did not answer within ${timeoutMs} ms`;
  if (APICallError.isInstance(error)) {
    if (error.statusCode === 429) return "the model's provider is rate limiting (429)";
    // A success whose body is not the provider's format (not JSON, fields missing).
    if (error.statusCode !== undefined && error.statusCode < 300)
      return "the model's answer could not be read";
    if (error.statusCode !== undefined) {
      const explained = providerExplanation(error);
      return `the model's provider answered ${error.statusCode}${explained ? `: ${explained}` : ""}`;
    }
    return "the model's provider could not be reached";
  }
  const name = error instanceof Error ? error.name : "error";
  return `the model's answer could not be read (${name})`;
}

/**
 * The most entities of one kind, and in all, a prompt shows, the nearest first: a crowd or a heap of
 * dropped items in view would otherwise make every call as long as the view is full (a player could
 * run up its cost by dropping items beside an agent). The state endpoint still lists them all.
 */
const PROMPT_ENTITIES_PER_KIND = 10;
const PROMPT_ENTITIES = 40;

/** The nearest entities within the prompt's bounds, and how many were left out. */
function promptEntities(entities: readonly NearbyEntity[]): {
  shown: NearbyEntity[];
  leftOut: number;
} {
  const perKind = new Map<string, number>();
  const shown: NearbyEntity[] = [];
  for (const entity of entities) {
    const count = perKind.get(entity.kind) ?? 0;
    if (count >= PROMPT_ENTITIES_PER_KIND || shown.length >= PROMPT_ENTITIES) continue;
    perKind.set(entity.kind, count + 1);
    shown.push(entity);
  }
  return { shown, leftOut: entities.length - shown.length };
}

/** The prompt: the providers' data, the goal, the owner's words and the recent results, as JSON. */
function describe({ context, goal, goalsPaused, instructions, recent }: DecisionInput): string {
  const provided = provideState(context);
  const { shown, leftOut } = promptEntities(provided.nearbyEntities);
  const state = {
    ...provided,
    nearbyEntities: shown,
    ...(leftOut > 0 && { fartherEntitiesNotListed: leftOut }),
    currentAction: context.know.currentAction,
    goal: goal && { type: goal.type, description: goal.description, progress: goal.progress },
    goalsPaused,
  };
  const parts = [`State:\n${JSON.stringify(state)}`];
  if (recent.length > 0)
    parts.push(`Recent actions:\n${recent.map((r) => `- ${r.action}: ${r.result}`).join("\n")}`);
  if (instructions.length > 0)
    parts.push(`The owner says:\n${instructions.map((text) => `- ${text}`).join("\n")}`);
  else
    parts.push(
      goalsPaused
        ? "The owner paused the goals: choose idle unless told otherwise."
        : "Choose the next action towards the goal.",
    );
  return parts.join("\n\n");
}
