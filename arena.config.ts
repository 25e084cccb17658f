// The Colyseus application definition, for hosts that load it with @colyseus/tools' `listen`.
// `npm start` runs src/index.ts, which builds the same application and also handles shutdown signals.
import { createApp } from "./src/app.js";
import { loadConfig } from "./src/config.js";
import { createLogger } from "./src/logger.js";
import { createRuntime } from "./src/runtime.js";
import { exitAfterFailedStart } from "./src/startup-error.js";

async function app() {
  const config = loadConfig();
  return createApp(await createRuntime(config, createLogger(config.LOG_LEVEL, config.logFormat)));
}

export default await app().catch(exitAfterFailedStart);
