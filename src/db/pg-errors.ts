// Errors from either driver: Drizzle wraps the database's error, whose SQLSTATE `code` (and, for a
// constraint violation, `constraint`) is somewhere down the `cause` chain.

export interface PgError {
  /** The SQLSTATE, such as 23505 (unique_violation). */
  code: string;
  constraint?: string;
}

export const UNIQUE_VIOLATION = "23505";

/** The database's own error inside `error`, if there is one. */
export function pgError(error: unknown): PgError | undefined {
  for (let current = error as { code?: unknown; cause?: unknown } | undefined; current; ) {
    if (typeof current.code === "string" && /^[0-9A-Z]{5}$/.test(current.code)) return current as PgError;
    current = current.cause as typeof current;
  }
  return undefined;
}

/**
 * Whether the database refused the data itself (SQLSTATE class 22, data exception, or 23, integrity
 * constraint violation): the same write would be refused again, unlike a lost connection's.
 */
export function isDataError(error: unknown): boolean {
  const code = pgError(error)?.code;
  return code !== undefined && (code.startsWith("22") || code.startsWith("23"));
}
