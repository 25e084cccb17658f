/**
 * Where an agent's SDK connects. Agents run in the process that holds the world, so they reach it at
 * `internal` (see src/internal-address.ts). Matchmaking names the room's public address instead when
 * one is set (PUBLIC_ADDRESS, or Colyseus Cloud's `subdomain.server/port`, which only its proxy in
 * front of the process resolves): a room connection to any other host goes to `internal` with the
 * same process and room (the path's last two segments) and query.
 */
export function throughOwnServer(url: URL, internal: URL): string {
  if (url.host === internal.host) return url.toString();
  const [processId, roomId] = url.pathname.split("/").slice(-2);
  const scheme = internal.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${internal.host}/${processId}/${roomId}${url.search}`;
}
