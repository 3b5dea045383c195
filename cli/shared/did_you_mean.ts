/**
 * The candidate closest to a mistyped name, when it is close enough to be a
 * likely typo (at most a third of the name's letters differ, and at most 3).
 *
 * @param name What the user typed.
 * @param candidates The valid names.
 * @returns The closest valid name, or `undefined` when none is close.
 *
 * @example
 * ```ts
 * import { didYouMean } from "./did_you_mean.ts";
 * console.assert(didYouMean("defaultModle", ["defaultModel", "models"]) === "defaultModel");
 * console.assert(didYouMean("zzz", ["defaultModel"]) === undefined);
 * ```
 */
export function didYouMean(name: string, candidates: Iterable<string>): string | undefined {
  const budget = Math.min(3, Math.floor(name.length / 3));
  let best: string | undefined;
  let bestDistance = budget + 1;
  for (const candidate of candidates) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Levenshtein distance with adjacent transpositions counted as one edit. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    rows.push([i]);
    for (let j = 1; j <= b.length; j++) {
      if (i === 0) {
        rows[0]!.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(
        rows[i - 1]![j]! + 1,
        rows[i]![j - 1]! + 1,
        rows[i - 1]![j - 1]! + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        distance = Math.min(distance, rows[i - 2]![j - 2]! + 1);
      }
      rows[i]!.push(distance);
    }
  }
  return rows[a.length]![b.length]!;
}
