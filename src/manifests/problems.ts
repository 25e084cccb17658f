// A validation problem names the file, the path inside it and the reason, so whoever edits the
// data can go straight to the offending value.

export interface Problem {
  file: string;
  /** e.g. `[3].drops[0].itemId`; empty for the whole file. */
  path: string;
  reason: string;
}

export function formatPath(segments: readonly PropertyKey[]): string {
  return segments
    .map((segment, index) => {
      if (typeof segment === "number") return `[${segment}]`;
      const name = String(segment);
      return index === 0 ? name : `.${name}`;
    })
    .join("");
}

export function problem(file: string, path: readonly PropertyKey[], reason: string): Problem {
  return { file, path: formatPath(path), reason };
}

export function formatReport(problems: readonly Problem[]): string {
  const lines = problems.map((p) => `  ${p.file}${p.path ? ` ${p.path}` : ""}: ${p.reason}`);
  return [
    `invalid game data (${problems.length} problem${problems.length === 1 ? "" : "s"}):`,
    ...lines,
  ].join("\n");
}
