// GET /env.js: the client's public configuration as a script. Only PUBLIC_* values ever appear in it.
import { type Request, Router } from "express";
import type { Config } from "../config.js";

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
 * Every PUBLIC_* value; the service's own addresses default to the address the client reached it at,
 * and the manifest host to this service (it serves /manifests/ itself).
 */
export function publicConfig(config: Config, origin: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(config)) {
    if (name.startsWith("PUBLIC_") && typeof value === "string") values[name] = value;
  }
  const apiUrl = config.PUBLIC_API_URL ?? origin;
  values.PUBLIC_API_URL = apiUrl;
  values.PUBLIC_WS_URL = config.PUBLIC_WS_URL ?? `${apiUrl.replace(/^http/, "ws").replace(/\/+$/, "")}/ws`;
  values.PUBLIC_CDN_URL = config.PUBLIC_CDN_URL ?? apiUrl;
  return values;
}

function requestOrigin(req: Request, config: Pick<Config, "PORT">): string {
  return `${req.protocol}://${req.get("host") ?? `localhost:${config.PORT}`}`;
}

/** JSON is a JavaScript literal; escaping `<` keeps a hostile Host header from closing an inline script. */
function scriptLiteral(value: unknown): string {
  return JSON.stringify(value).replaceAll("<", "\\u003c");
}
