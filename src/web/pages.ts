// The pages for people: the landing page, the web client and the agent dashboard, served from web/.
// They are static files: every page is a client of the public REST API, /ws and /env.js like any other.
import path from "node:path";
import express, { type Request, type Response, Router } from "express";
import { actionCatalog } from "../agents/actions/index.js";
import { PROJECT_ROOT } from "../config/paths.js";

export const WEB_DIR = path.join(PROJECT_ROOT, "web");
const DOCS_DIR = path.join(PROJECT_ROOT, "docs");

/** Markdown is shown as text: browsers would download `text/markdown`. */
const asText = (res: Response, file: string) => {
  if (file.endsWith(".md")) res.setHeader("Content-Type", "text/plain; charset=utf-8");
};

const PAGES: Record<string, string> = {
  "/": "index.html",
  "/play": "play.html",
  "/dashboard": "dashboard.html",
};

/** `/`, `/play`, `/dashboard`, their scripts and styles under `/web/`, and the docs under `/docs/`. */
export function webPagesRouter(webDir = WEB_DIR): Router {
  const router = Router();
  for (const [route, file] of Object.entries(PAGES)) {
    router.get(route, (_req: Request, res: Response) => {
      // Revalidated each time: a page and the scripts it loads change together when the server updates.
      res.set("Cache-Control", "no-cache").sendFile(path.join(webDir, file));
    });
  }
  // The agent actions the dashboard offers, from the actions themselves: names, what they do, parameters.
  const catalog = JSON.stringify(actionCatalog());
  router.get("/web/agent-actions.json", (_req, res) => {
    res.set("Cache-Control", "no-cache").type("application/json").send(catalog);
  });
  router.use(
    "/web",
    express.static(webDir, {
      index: false,
      fallthrough: true,
      setHeaders: (res) => res.setHeader("Cache-Control", "no-cache"),
    }),
  );
  router.get("/README.md", (_req, res) => {
    res.type("text/plain").sendFile(path.join(PROJECT_ROOT, "README.md"));
  });
  router.use("/docs", express.static(DOCS_DIR, { index: false, setHeaders: asText }));
  return router;
}
