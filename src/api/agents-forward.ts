// With AGENT_FRAMEWORK_URL set, the agents run in a process of their own (`npm run agents`): every
// /api/agents request is carried there as it came (method, path, query, body, the caller's token and
// address) and its answer passed back as it was given.
import type { RequestHandler } from "express";
import { ServiceError } from "../protocol/errors.js";
import type { Logger } from "../telemetry/logger.js";
import type { AddressVoucher } from "./vouched-address.js";

/** The agent process answers within this, or the caller is told it is unavailable. */
const FORWARD_TIMEOUT_MS = 15_000;
/** The request's headers that travel with it; the rest describe this hop only. */
const FORWARDED_HEADERS = ["authorization", "content-type", "accept", "user-agent"];
/** The answer's headers that travel back. */
const RETURNED_HEADERS = ["content-type", "retry-after", "www-authenticate", "cache-control"];

/**
 * Carries a request, its caller already authenticated here, to the agent process. When that does not
 * answer the caller is told so, and the log says where it was looked for (clients are not told the
 * internal address).
 */
export function forwardAgentRequests(
  frameworkUrl: string,
  voucher: AddressVoucher,
  logger: Logger,
): RequestHandler {
  const base = frameworkUrl.replace(/\/+$/, "");
  return async (req, res) => {
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_HEADERS) {
      const value = req.headers[name];
      if (typeof value === "string") headers[name] = value;
    }
    // The client's address as this server resolved it (TRUST_PROXY), for the agent process's logs, and
    // vouched for: the agent process counts AGENTS_PER_ADDRESS by it.
    headers["x-forwarded-for"] = req.ip ?? "";
    Object.assign(headers, voucher.headers(req.ip ?? ""));
    // express.json has parsed the body already: it goes on as JSON (a request without one, without).
    const body = req.body === undefined ? undefined : JSON.stringify(req.body);
    if (body !== undefined) headers["content-type"] = "application/json";
    let answer: Response;
    try {
      answer = await fetch(`${base}${req.originalUrl}`, {
        method: req.method,
        headers,
        body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
        signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
        redirect: "manual",
      });
    } catch {
      logger.warn(
        { agentProcess: base },
        `the agent process at ${base} (AGENT_FRAMEWORK_URL) does not answer: start it with npm run agents, or unset AGENT_FRAMEWORK_URL to run the agents in this server`,
      );
      throw new ServiceError("unavailable", "the agents' service does not answer; retry shortly");
    }
    res.status(answer.status);
    for (const name of RETURNED_HEADERS) {
      const value = answer.headers.get(name);
      if (value !== null) res.set(name, value);
    }
    res.end(Buffer.from(await answer.arrayBuffer()));
  };
}
