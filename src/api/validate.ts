import type { z } from "zod";
import { ApiError } from "./errors.js";

/** The parsed value, or a 400 `bad_request` whose details name each offending field. */
export function parseOr400<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details = result.error.issues.map((issue) => ({
    field: issue.path.join(".") || "(body)",
    message: issue.message,
  }));
  throw new ApiError(400, "bad_request", "the request is invalid", details);
}
