/**
 * The streaming check shared by the markdown streaming tests: a text fed
 * in deltas must render, after every delta, exactly as a fresh component
 * given the text so far, and `firstLineChanged` must name the first line
 * that really changed.
 *
 * @module
 */
import assert from "node:assert/strict";

/** What the check needs of a streamed markdown component. */
export interface Streamed {
  append(delta: string): void;
  render(width: number): readonly string[];
  firstLineChanged(): number | null;
}

/** Cuts `text` into consecutive deltas of the given sizes (repeated). */
export function deltas(text: string, sizes: readonly number[]): string[] {
  const out: string[] = [];
  for (let at = 0, i = 0; at < text.length; i++) {
    const size = sizes[i % sizes.length] ?? 1;
    out.push(text.slice(at, at + size));
    at += size;
  }
  return out;
}

/**
 * Streams `text` in deltas of `sizes` into a component from `make` and
 * checks every frame against a fresh component given the text so far; also
 * checks that lines above `firstLineChanged()` are unchanged and the line
 * it names did change.
 */
export function checkStream(
  text: string,
  sizes: readonly number[],
  width: number,
  make: () => Streamed,
): void {
  const streamed = make();
  let sofar = "";
  let previous: string[] = [];
  for (const delta of deltas(text, sizes)) {
    streamed.append(delta);
    sofar += delta;
    const first = streamed.firstLineChanged();
    const lines = [...streamed.render(width)];
    const fresh = make();
    fresh.append(sofar);
    const label = `after ${JSON.stringify(sofar)} at width ${width}`;
    assert.deepEqual(lines, [...fresh.render(width)], label);
    const unchanged = first ?? Math.max(lines.length, previous.length);
    for (let i = 0; i < Math.min(unchanged, previous.length); i++) {
      assert.equal(
        lines[i],
        previous[i],
        `line ${i} changed above the reported ${first}; ${label}`,
      );
    }
    if (first === null) assert.equal(lines.length, previous.length, `null but grew; ${label}`);
    else if (first < lines.length && first < previous.length) {
      assert.notEqual(lines[first], previous[first], `line ${first} did not change; ${label}`);
    }
    previous = lines;
  }
}
