import type { Config } from "../config/config.js";
import { LOCAL_MANIFESTS_DIR } from "../config/paths.js";
import { loadGameData } from "../manifests/loader.js";
import type { Logger } from "../telemetry/logger.js";

/** The game data as the configuration says to load it: the game server and the agent process alike. */
export function loadConfiguredGameData(config: Config, logger: Logger) {
  return loadGameData({
    env: config.production ? "production" : "development",
    manifestDir: LOCAL_MANIFESTS_DIR,
    cacheDir: config.manifestCacheDir,
    cdnUrl: config.cdnUrl,
    productionCdnUrl: config.PRODUCTION_CDN_URL,
    skipManifests: config.SKIP_MANIFESTS,
    log: logger,
  });
}
