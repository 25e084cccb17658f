/**
 * How a publish's frames reach the sockets (WRITE_PATH). `thread`: framed by hand, SDK clients'
 * Colyseus frames included, and written by the writer thread straight to each socket's descriptor, with
 * state patches encoded from each client's scope; it reaches into `ws`, Colyseus and Node internals
 * (each checked by a canary in test/net/internals.test.ts). `stream`: /ws clients' frames written
 * through each socket's stream, and everything else left to Colyseus and `ws`, through public APIs only.
 */
export const WRITE_PATHS = ["thread", "stream"] as const;
export type WritePath = (typeof WRITE_PATHS)[number];
