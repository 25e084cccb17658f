import { createHash } from "node:crypto";

/** A content hash: equal for equal bytes. Used to detect changed manifests and as an ETag. */
export function contentHash(content: string | Buffer): string {
  return createHash("sha256").update(content).digest("base64url");
}
