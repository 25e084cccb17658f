// The language model an agent may be driven by (OpenAI, Anthropic, Google, or an
// OpenAI-compatible local host), chosen from the configuration. The key goes to the model client and
// nowhere else: only the "<provider>:<model>" label is ever shown.
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import type { Config } from "../../config/config.js";
import { cappedFetch } from "./capped-fetch.js";

export const MODEL_PROVIDERS = ["openai", "anthropic", "google", "local"] as const;
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

/** The model of each provider used when AGENT_MODEL names none: small, quick and cheap ones. */
export const DEFAULT_MODELS: Record<ModelProvider, string> = {
  openai: "gpt-4o-mini",
  anthropic: "claude-haiku-4-5",
  google: "gemini-2.5-flash",
  local: "llama3.2",
};

export type ModelConfig = Pick<
  Config,
  | "OPENAI_API_KEY"
  | "OPENAI_BASE_URL"
  | "ANTHROPIC_API_KEY"
  | "ANTHROPIC_BASE_URL"
  | "GOOGLE_GENERATIVE_AI_API_KEY"
  | "GOOGLE_GENERATIVE_AI_BASE_URL"
  | "LOCAL_MODEL_URL"
  | "AGENT_MODEL"
>;

export interface ChosenModel {
  /** The protocol's `planner` value: "<provider>:<model>". */
  label: string;
  model: LanguageModel;
}

function configured(config: ModelConfig, provider: ModelProvider): boolean {
  switch (provider) {
    case "openai":
      return config.OPENAI_API_KEY !== undefined;
    case "anthropic":
      return config.ANTHROPIC_API_KEY !== undefined;
    case "google":
      return config.GOOGLE_GENERATIVE_AI_API_KEY !== undefined;
    case "local":
      return config.LOCAL_MODEL_URL !== undefined;
  }
}

/** AGENT_MODEL's model, else the first configured provider's default; undefined with none configured. */
export function chooseModel(config: ModelConfig): ChosenModel | undefined {
  let provider: ModelProvider | undefined;
  let modelId: string | undefined;
  if (config.AGENT_MODEL) {
    const at = config.AGENT_MODEL.indexOf(":");
    provider = config.AGENT_MODEL.slice(0, at) as ModelProvider;
    modelId = config.AGENT_MODEL.slice(at + 1);
  } else provider = MODEL_PROVIDERS.find((candidate) => configured(config, candidate));
  if (!provider || !configured(config, provider)) return undefined;
  const id = modelId ?? DEFAULT_MODELS[provider];
  return { label: `${provider}:${id}`, model: languageModel(config, provider, id) };
}

function languageModel(config: ModelConfig, provider: ModelProvider, id: string): LanguageModel {
  switch (provider) {
    case "openai":
      // Chat completions: what OpenAI-compatible gateways speak too.
      return createOpenAI({
        apiKey: config.OPENAI_API_KEY,
        baseURL: config.OPENAI_BASE_URL,
        fetch: cappedFetch,
      }).chat(id);
    case "anthropic":
      return createAnthropic({
        apiKey: config.ANTHROPIC_API_KEY,
        baseURL: config.ANTHROPIC_BASE_URL,
        fetch: cappedFetch,
      })(id);
    case "google":
      return createGoogleGenerativeAI({
        apiKey: config.GOOGLE_GENERATIVE_AI_API_KEY,
        baseURL: config.GOOGLE_GENERATIVE_AI_BASE_URL,
        fetch: cappedFetch,
      })(id);
    case "local":
      return createOpenAICompatible({
        name: "local",
        baseURL: config.LOCAL_MODEL_URL!,
        fetch: cappedFetch,
      }).chatModel(id);
  }
}
