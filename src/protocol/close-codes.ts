// WebSocket close codes of the game's own, told to clients (docs/protocol.md lists them).

/** Sent to a session that another login of the same character replaced. */
export const CLOSE_REPLACED = 4409;
/** Sent to a session an admin removed (`/kick`, `/ban`): the reason says which. */
export const CLOSE_REMOVED = 4403;
/** Sent to a client that keeps flooding through its block. */
export const CLOSE_FLOODING = 4429;
/** Sent to a login the server cannot take now (its database is unavailable): retry with back-off. */
export const CLOSE_UNAVAILABLE = 4503;
/**
 * Between the server's processes only: the world's process hands a relayed player's granted hop back to
 * the process holding its connection, which joins the next world from there (reason `<world>:<character>`).
 */
export const CLOSE_HOP_HERE = 4308;
