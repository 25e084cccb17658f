// WebSocket close codes of the game's own, told to clients (docs/protocol.md lists them).

/** Sent to a session that another login of the same character replaced. */
export const CLOSE_REPLACED = 4409;
/** Sent to a client that keeps flooding through its block. */
export const CLOSE_FLOODING = 4429;
/** Sent to a login the server cannot take now (its database is unavailable): retry with back-off. */
export const CLOSE_UNAVAILABLE = 4503;
