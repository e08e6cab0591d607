/** "unknown flag --prot (did you mean --port?)": the closest name of the flag table within 2 edits. */
import { flagNames } from "./flag-table.ts";

/** The message for an unknown flag, with the nearest known long name when one is close. */
export function unknownMessage(flag: string): string {
  const name = flag.replace(/^-+/, "");
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of flagNames()) {
    if (candidate.length === 1) continue;
    const d = distance(name, candidate);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return `unknown flag ${flag}${best ? ` (did you mean --${best}?)` : ""}`;
}

/** Levenshtein distance, for "did you mean". */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}
