// Stand-ins for the language-model providers, on loopback: each speaks its provider's HTTP API
// (OpenAI chat completions, Anthropic messages, Google generateContent; a local host is OpenAI's),
// answers as scripted, and keeps every request for the test to read.
import http from "node:http";
import type { AddressInfo } from "node:net";

export type StubProvider = "openai" | "anthropic" | "google" | "local";
/** What the stub answers next: a tool call, or one of the failures a model can have. */
export type StubMode =
  | { kind: "tool"; name: string; input?: Record<string, unknown>; text?: string }
  /** Words alone: no tool call. */
  | { kind: "words"; text: string }
  | { kind: "slow"; ms: number }
  /** A tool call, answered `ms` late. */
  | { kind: "late"; ms: number; name: string }
  /** No answer, until the client hangs up. */
  | { kind: "never" }
  /** `bytes` of an answer, sent in pieces (no length given ahead). */
  | { kind: "huge"; bytes: number }
  | { kind: "malformed" }
  /** An error status, with the wait a provider asks for in `retry-after` when given. */
  | { kind: "status"; status: number; retryAfter?: string };

export interface StubRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
}

export interface ModelStub {
  /** The base URL to configure (…_BASE_URL, LOCAL_MODEL_URL). */
  url: string;
  mode: StubMode;
  requests: StubRequest[];
  /** Requests whose client hung up before their answer was sent whole. */
  abandoned: number;
  close(): Promise<void>;
}

/** An answer in words alone, as each provider gives one. */
function wordsReply(provider: StubProvider, text: string): unknown {
  switch (provider) {
    case "openai":
    case "local":
      return {
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1,
        model: "stub",
        choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      };
    case "anthropic":
      return {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "stub",
        content: [{ type: "text", text }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 5 },
      };
    case "google":
      return {
        candidates: [{ content: { role: "model", parts: [{ text }] }, finishReason: "STOP", index: 0 }],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      };
  }
}

function toolReply(provider: StubProvider, mode: Extract<StubMode, { kind: "tool" }>): unknown {
  const input = mode.input ?? {};
  switch (provider) {
    case "openai":
    case "local":
      return {
        id: "chatcmpl-1",
        object: "chat.completion",
        created: 1,
        model: "stub",
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: mode.text ?? null,
              tool_calls: [
                {
                  id: "call_1",
                  type: "function",
                  function: { name: mode.name, arguments: JSON.stringify(input) },
                },
              ],
            },
            finish_reason: "tool_calls",
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      };
    case "anthropic":
      return {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "stub",
        content: [
          ...(mode.text ? [{ type: "text", text: mode.text }] : []),
          { type: "tool_use", id: "toolu_1", name: mode.name, input },
        ],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage: { input_tokens: 10, output_tokens: 5 },
      };
    case "google":
      return {
        candidates: [
          {
            content: {
              role: "model",
              parts: [
                ...(mode.text ? [{ text: mode.text }] : []),
                { functionCall: { name: mode.name, args: input } },
              ],
            },
            finishReason: "STOP",
            index: 0,
          },
        ],
        usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      };
  }
}

export async function startModelStub(provider: StubProvider): Promise<ModelStub> {
  const requests: StubRequest[] = [];
  const stub: ModelStub = {
    url: "",
    mode: { kind: "tool", name: "chopTree" },
    requests,
    abandoned: 0,
    close: async () => {},
  };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      let json: Record<string, unknown> = {};
      try {
        json = JSON.parse(body);
      } catch {}
      requests.push({ path: req.url ?? "", headers: req.headers, body, json });
      res.on("close", () => {
        if (!res.writableFinished) stub.abandoned++;
      });
      const mode = stub.mode;
      const send = (status: number, payload: unknown) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(payload));
      switch (mode.kind) {
        case "tool":
          return send(200, toolReply(provider, mode));
        case "words":
          return send(200, wordsReply(provider, mode.text));
        case "slow":
          setTimeout(() => {
            if (!res.destroyed) send(200, toolReply(provider, { kind: "tool", name: "idle" }));
          }, mode.ms).unref();
          return;
        case "late":
          setTimeout(() => {
            if (!res.destroyed) send(200, toolReply(provider, { kind: "tool", name: mode.name }));
          }, mode.ms).unref();
          return;
        case "never":
          return;
        case "huge": {
          res.writeHead(200, { "content-type": "application/json" });
          const piece = "a".repeat(16 * 1024);
          const more = (left: number): void => {
            if (res.destroyed) return;
            if (left <= 0) return void res.end();
            if (res.write(piece)) more(left - piece.length);
            else res.once("drain", () => more(left - piece.length));
          };
          res.write('{"choices":[{"message":{"content":"');
          return more(mode.bytes);
        }
        case "malformed":
          return res.writeHead(200, { "content-type": "application/json" }).end("{ this is not json");
        case "status":
          return res
            .writeHead(mode.status, {
              "content-type": "application/json",
              ...(mode.retryAfter !== undefined && { "retry-after": mode.retryAfter }),
            })
            .end(
              JSON.stringify({
                error: { message: "slow down", type: "rate_limit_error", code: mode.status },
              }),
            );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  stub.url = provider === "google" ? `http://127.0.0.1:${port}/v1beta` : `http://127.0.0.1:${port}/v1`;
  stub.close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return stub;
}

/** The names of the tools a request offered, whichever provider's shape it has. */
export function offeredTools(request: StubRequest): string[] {
  const tools = (request.json.tools ?? []) as Record<string, unknown>[];
  return tools.flatMap((entry) => {
    if (typeof entry.name === "string") return [entry.name];
    const fn = entry.function as { name?: string } | undefined;
    if (fn?.name) return [fn.name];
    const declarations = entry.functionDeclarations as { name: string }[] | undefined;
    return declarations?.map((d) => d.name) ?? [];
  });
}
