/**
 * An answer of numbered paragraphs for resize tests: every word is unique
 * (`P<i>:`, then `w<i>x<k>`), so a word found twice, or not at all, in the
 * terminal's history and screen shows a row drawn twice or lost.
 *
 * @module
 */

/** Words of paragraph `index`: a tag, then `w<index>x<k>`; lengths vary so some wrap only when narrow. */
function paragraph(index: number): string {
  const count = 4 + (index * 7) % 23;
  const words = Array.from({ length: count }, (_, k) => `w${index}x${k}`);
  return [`P${index}:`, ...words].join(" ");
}

/** A hundred paragraphs, `P1:` to `P100:`. */
export const PARAGRAPHS: readonly string[] = Array.from(
  { length: 100 },
  (_, i) => paragraph(i + 1),
);

const WORDS = PARAGRAPHS.flatMap((text) => text.split(" "));
const WORD = /^(P\d+:|w\d+x\d+)$/;

/** The words of {@linkcode PARAGRAPHS} found more than once in `lines`, and those not found. */
export function wordCounts(lines: readonly string[]): { duplicated: string[]; missing: string[] } {
  const counts = new Map<string, number>();
  for (const word of lines.join(" ").split(/\s+/)) {
    if (WORD.test(word)) counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  return {
    duplicated: WORDS.filter((word) => (counts.get(word) ?? 0) > 1),
    missing: WORDS.filter((word) => !counts.has(word)),
  };
}
