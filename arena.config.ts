// The Colyseus application definition, for hosts that load it with @colyseus/tools' `listen`.
// `npm start` runs src/server/index.ts, which builds the same application and also handles shutdown signals.

import { loadConfig } from "./src/config/config.js";
import { exitAfterFailedStart } from "./src/config/startup-error.js";
import { createApp } from "./src/server/app.js";
import { createRuntime } from "./src/server/runtime.js";
import { createLogger } from "./src/telemetry/logger.js";

async function app() {
  const config = loadConfig();
  return createApp(await createRuntime(config, createLogger(config.LOG_LEVEL, config.logFormat)));
}

export default await app().catch(exitAfterFailedStart);
