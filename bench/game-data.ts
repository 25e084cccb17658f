import os from "node:os";
import { LOCAL_CDN_URL } from "../src/config/config.js";
import { LOCAL_MANIFESTS_DIR } from "../src/config/paths.js";
import type { GameData } from "../src/game/types.js";
import { loadGameData } from "../src/manifests/loader.js";

/** The checkout's own manifests, as a development server loads them, without fetching or logging. */
export async function localGameData(): Promise<GameData> {
  const silent = { info() {}, warn() {}, error() {} };
  const { data } = await loadGameData({
    env: "development",
    manifestDir: LOCAL_MANIFESTS_DIR,
    cacheDir: os.tmpdir(),
    cdnUrl: LOCAL_CDN_URL,
    productionCdnUrl: LOCAL_CDN_URL,
    skipManifests: true,
    log: silent,
  });
  return data;
}
