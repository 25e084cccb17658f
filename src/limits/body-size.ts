/**
 * No endpoint takes more than a name or a short message; anything larger is refused with 413. The
 * matchmaker's routes hold bodies to it too (see matchmaking-limit.ts).
 */
export const BODY_LIMIT_BYTES = 16 * 1024;
