// Helpers for the REST API suites: requests against a started server, anonymous sign-in, and an identity
// provider's key set served on loopback.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { JWK } from "jose";
import type { TestServer } from "../support/server.js";

export interface RequestOptions {
  method?: string;
  token?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export function request(
  server: Pick<TestServer, "baseUrl">,
  path: string,
  options: RequestOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] ??= "application/json";
  return fetch(`${server.baseUrl}${path}`, {
    method: options.method ?? (options.body === undefined ? "GET" : "POST"),
    headers,
    body:
      options.body === undefined
        ? undefined
        : typeof options.body === "string"
          ? options.body
          : JSON.stringify(options.body),
  });
}

/** A new anonymous identity with its character. */
export async function signInAnonymously(server: TestServer): Promise<{ token: string; playerId: string }> {
  const response = await request(server, "/api/v1/auth/anonymous", { method: "POST" });
  assert.equal(response.status, 201);
  return response.json();
}

/** Asserts the protocol's error body and returns it. */
export async function expectError(response: Response, status: number, code: string) {
  assert.equal(response.status, status);
  // HTTP asks a 401 to name the scheme that would be accepted.
  if (status === 401) assert.equal(response.headers.get("www-authenticate"), "Bearer");
  const body = await response.json();
  assert.equal(body.error.code, code, JSON.stringify(body));
  assert.equal(typeof body.error.message, "string");
  return body.error as { code: string; message: string; details?: { field: string; message: string }[] };
}

/** Plenty of budget for suites that are not about the limits. */
export const GENEROUS_LIMITS = {
  RATE_LIMIT_REST_PER_MIN: "10000",
  RATE_LIMIT_AUTH_PER_MIN: "10000",
  // Every test client shares the loopback address.
  AGENTS_PER_ADDRESS: "10000",
};

export interface KeySetServer {
  url: string;
  /** Replaces the served keys (a provider rotating its keys); counts fetches. */
  serve(keys: JWK[]): void;
  fetches(): number;
  close(): Promise<void>;
}

export async function startKeySetServer(keys: JWK[]): Promise<KeySetServer> {
  let served = keys;
  let fetches = 0;
  const server = http.createServer((_req, res) => {
    fetches++;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: served }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    serve: (next) => {
      served = next;
    },
    fetches: () => fetches,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
