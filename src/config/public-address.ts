// PUBLIC_ADDRESS: where the other processes on REDIS_URL reach this one (the /ws relay, seat reservations).
import os from "node:os";

interface AddressSettings {
  PORT: number;
  REDIS_URL?: string | undefined;
  PUBLIC_ADDRESS?: string | undefined;
}

/**
 * This process's public address: PUBLIC_ADDRESS with `{port}` as the port it listens on, or, unset,
 * the one it chooses (see defaultPublicAddress); `problem` when it would share another's.
 */
export function publicAddressOf(
  values: AddressSettings,
  env: NodeJS.ProcessEnv,
): { publicAddress: string | undefined; problem?: string } {
  const address = values.PUBLIC_ADDRESS;
  if (address === undefined) return { publicAddress: defaultPublicAddress(values, env) };
  if (address.includes("{port}"))
    return { publicAddress: address.replaceAll("{port}", String(listeningPort(values, env))) };
  // pm2's instances share one environment: an instance after the first whose address names no `{port}`
  // would share the first's, and the relay between them would go round.
  if (values.REDIS_URL && Number(env.NODE_APP_INSTANCE) > 0)
    return {
      publicAddress: address,
      problem:
        `PUBLIC_ADDRESS (${address}) is the same for every pm2 instance (this is instance ${env.NODE_APP_INSTANCE}): ` +
        "each process needs an address of its own; put {port} where its port goes (e.g. 10.0.0.5:{port}), " +
        "which stands for the port each instance listens on.",
    };
  return { publicAddress: address };
}

/**
 * In development with REDIS_URL, this host's name and the port the process listens on: enough for
 * processes on one machine, or on hosts that know each other by name. Undefined otherwise, and on
 * Colyseus Cloud, which sets it itself.
 */
function defaultPublicAddress(values: AddressSettings, env: NodeJS.ProcessEnv): string | undefined {
  if (!values.REDIS_URL || env.COLYSEUS_CLOUD !== undefined || values.PORT === 0) return undefined;
  return `${os.hostname()}:${listeningPort(values, env)}`;
}

/** The port the process listens on: PORT, plus NODE_APP_INSTANCE as @colyseus/tools adds it under pm2. */
function listeningPort(values: AddressSettings, env: NodeJS.ProcessEnv): number {
  return values.PORT + (Number(env.NODE_APP_INSTANCE) || 0);
}
