// GET /env.js: the client's public configuration as a script. Only PUBLIC_* values ever appear in it.
import { type Request, Router } from "express";
import type { Config } from "../config/config.js";

/** The global the script assigns; the client reads `window.env.PUBLIC_...`. */
const GLOBAL_NAME = "env";

export function envScriptRouter(config: Config): Router {
  return Router().get("/env.js", (req, res) => {
    res
      .type("application/javascript")
      .set("Cache-Control", "no-store")
      .send(
        `window.${GLOBAL_NAME} = Object.freeze(${scriptLiteral(publicConfig(config, requestOrigin(req, config)))});\n`,
      );
  });
}

/**
 * The values a client is configured with, listed rather than every PUBLIC_* variable: PUBLIC_ADDRESS is
 * one process's internal address for scale-out, of no use to a client.
 */
const CLIENT_VARIABLES = ["PUBLIC_IDP_APP_ID", "PUBLIC_APP_URL"] as const;

/**
 * The client's configuration. The service's own addresses default to the address the client reached it
 * at; the asset host to the one the server fetches its manifests from (the interface's asset host on port 8080),
 * where the models and audio the client loads are.
 */
export function publicConfig(config: Config, origin: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of CLIENT_VARIABLES) {
    const value = config[name];
    if (value !== undefined) values[name] = value;
  }
  const apiUrl = config.PUBLIC_API_URL ?? origin;
  values.PUBLIC_API_URL = apiUrl;
  values.PUBLIC_WS_URL = config.PUBLIC_WS_URL ?? `${apiUrl.replace(/^http/, "ws").replace(/\/+$/, "")}/ws`;
  values.PUBLIC_CDN_URL = config.cdnUrl;
  return values;
}

/**
 * The addresses a page that loaded /env.js from this request connects to (its REST calls and its
 * WebSocket): what the Content-Security-Policy of the pages lets them reach.
 */
export function publishedAddresses(config: Config, req: Request): string[] {
  const { PUBLIC_API_URL, PUBLIC_WS_URL } = publicConfig(config, requestOrigin(req, config));
  return [PUBLIC_API_URL!, PUBLIC_WS_URL!];
}

function requestOrigin(req: Request, config: Pick<Config, "PORT">): string {
  // Behind a trusted proxy (TRUST_PROXY), X-Forwarded-Host names the public host where Host may not.
  return `${req.protocol}://${req.host ?? `localhost:${config.PORT}`}`;
}

/** JSON is a JavaScript literal; escaping `<` keeps a hostile Host header from closing an inline script. */
function scriptLiteral(value: unknown): string {
  return JSON.stringify(value).replaceAll("<", "\\u003c");
}
