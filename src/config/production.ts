// What a production process must be given: the variables it cannot run without, and secrets long
// enough not to be guessed. Development needs none of them.

/** Shortest secrets a production server accepts: a shorter JWT_SECRET, ADMIN_CODE or METRICS_TOKEN can be guessed. */
export const MIN_JWT_SECRET_BYTES = 32;
export const MIN_ADMIN_CODE_LENGTH = 12;

/** Variables without which a production game server refuses to start (docs/configuration.md). */
export const REQUIRED_IN_PRODUCTION = [
  "DATABASE_URL",
  "JWT_SECRET",
  "ADMIN_CODE",
  "PUBLIC_IDP_APP_ID",
  "IDP_APP_SECRET",
] as const;

/**
 * What a production agent process (`npm run agents`) needs: the game server's own secret, which its
 * agents' tokens are signed with, and where that server is (the default, localhost, is development's).
 * It holds no database, no identity provider and no admin code of its own.
 */
export const REQUIRED_IN_PRODUCTION_AGENTS = ["JWT_SECRET", "GAME_SERVER_URL"] as const;

/** Which process reads the configuration: the game server, or the agent process. */
export type ProcessRole = "game" | "agents";

/** What `env` lacks for a production process of `role`: unset variables, and secrets too short. */
export function productionProblems(
  env: NodeJS.ProcessEnv,
  role: ProcessRole,
): { missing: string[]; weak: string[] } {
  const missing =
    role === "agents"
      ? REQUIRED_IN_PRODUCTION_AGENTS.filter((name) => env[name] === undefined)
      : [...missingInProduction(env), ...missingToScaleOut(env)];
  return { missing, weak: weakInProduction(env) };
}

/** The production secrets `env` sets too short to withstand guessing, each with what it needs. */
function weakInProduction(env: NodeJS.ProcessEnv): string[] {
  const weak: string[] = [];
  const secret = env.JWT_SECRET?.trim();
  if (secret && Buffer.byteLength(secret) < MIN_JWT_SECRET_BYTES)
    weak.push(`JWT_SECRET has ${Buffer.byteLength(secret)} bytes, fewer than ${MIN_JWT_SECRET_BYTES}`);
  const code = env.ADMIN_CODE?.trim();
  if (code && [...code].length < MIN_ADMIN_CODE_LENGTH)
    weak.push(`ADMIN_CODE has ${[...code].length} characters, fewer than ${MIN_ADMIN_CODE_LENGTH}`);
  // Optional, but a bearer of it reads the server's metrics: held to the admin code's length.
  const metricsToken = env.METRICS_TOKEN?.trim();
  if (metricsToken && [...metricsToken].length < MIN_ADMIN_CODE_LENGTH)
    weak.push(
      `METRICS_TOKEN has ${[...metricsToken].length} characters, fewer than ${MIN_ADMIN_CODE_LENGTH}`,
    );
  return weak;
}

/** The production variables `env` leaves unset. */
function missingInProduction(env: NodeJS.ProcessEnv): string[] {
  const isSet = (name: string) => env[name] !== undefined;
  const missing: string[] = REQUIRED_IN_PRODUCTION.filter((name) => !isSet(name));
  if (!isSet("IDP_JWKS_URL") && !isSet("IDP_VERIFICATION_KEY"))
    missing.push("IDP_JWKS_URL or IDP_VERIFICATION_KEY");
  // Production always has a provider, and a provider always needs its issuer (see loadConfig).
  if (!isSet("IDP_ISSUER")) missing.push("IDP_ISSUER");
  return missing;
}

// Scaled out (REDIS_URL): what every process needs to reach, and to trust, the others.

/**
 * Production variables that scaling out needs: with REDIS_URL, each process's PUBLIC_ADDRESS (a /ws
 * connection that reaches a process without the world is relayed there; without it, 503). Colyseus
 * Cloud gives each process its address itself. JWT_SECRET, which the processes must share, is required
 * in production anyway.
 */
function missingToScaleOut(env: NodeJS.ProcessEnv): string[] {
  const scaledOut = env.REDIS_URL !== undefined && env.COLYSEUS_CLOUD === undefined;
  return scaledOut && env.PUBLIC_ADDRESS === undefined ? ["PUBLIC_ADDRESS (REDIS_URL is set)"] : [];
}
