import { z } from "zod";
import { CHARACTER_NAME, CHARACTER_NAME_RULE } from "../game/character-names.js";
import { ServiceError } from "../protocol/errors.js";
import { WHOLE_BODY } from "./errors.js";

/** A body that names a character (a rename, a new agent). */
export const characterNameBody = z.strictObject({
  name: z.string().regex(CHARACTER_NAME, CHARACTER_NAME_RULE),
});

/** The body of a request that takes none: absent, or an empty object. */
export const noBody = z.strictObject({});

/** No body is an empty one; a `null` sent as one is refused as any other value that is not an object. */
export const bodyOf = (req: { body?: unknown }): unknown => (req.body === undefined ? {} : req.body);

/** The parsed value, or a 400 `bad_request` whose details name each offending field. */
export function parseOr400<T extends z.ZodType>(schema: T, value: unknown): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const details = result.error.issues.flatMap((issue) =>
    // Zod reports unknown keys against the object that holds them: each is named as a field of its own.
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({
          field: [...issue.path, key].join("."),
          message: "not a field of this request",
        }))
      : [{ field: issue.path.join(".") || WHOLE_BODY, message: issue.message }],
  );
  throw new ServiceError("bad_request", "the request is invalid", details);
}
