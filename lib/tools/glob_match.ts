/** The longest glob accepted: far beyond any real one, and it bounds the matching work. */
const MAX_GLOB_CHARS = 4096;
/** Most patterns a glob's braces may expand to (`{a,b}` written 30 times would be 2^30). */
const MAX_ALTERNATIVES = 1000;
/** Most characters the expanded patterns may hold together: matching costs time in proportion. */
const MAX_EXPANDED_CHARS = 64 * 1024;

/** A whole `**` path segment: any number of directories. */
const GLOBSTAR = "globstar";

/** One position of a segment pattern. */
type Token =
  | { kind: "star" }
  | { kind: "any" }
  | { kind: "char"; char: string }
  /** `undefined`: a class that can match nothing, as minimatch makes of `[z-a]`. */
  | { kind: "class"; regex: RegExp | undefined };

type Segment = Token[] | typeof GLOBSTAR;

/**
 * A matcher for a glob such as `*.ts`, `src/**\/*_test.ts` or `*.{js,jsx}`
 * against `/`-separated relative paths. Hidden files match like any other;
 * a pattern without `/` matches the file name at any depth; a leading `!`
 * negates. The syntax is minimatch's (`*`, `?`, `[a-z]`, `[[:alpha:]]`,
 * `**`, braces including `{1..3}`, `\` escapes) less extglobs (`+(a|b)`,
 * whose characters are literal here) and `#` comments; a leading `./` is
 * ignored.
 *
 * Hand-written because every JavaScript glob library (minimatch,
 * picomatch/micromatch, zeptomatch, `@std/path`'s `globToRegExp`) compiles
 * to a backtracking RegExp: `*a*a…*b` against a long run of `a`s never
 * finished, on the main thread, deaf to every interrupt. This is the classic
 * wildcard algorithm, which backtracks only to the last star: at most
 * (pattern length × path length) steps, once with `**` over segments and
 * once with `*` within a segment. Braces are expanded by minimatch's own
 * `braceExpand`, bounded.
 *
 * @param pattern The glob.
 * @returns A predicate on relative paths.
 * @throws When the glob is too long or its braces expand to too many patterns.
 *
 * @example
 * ```ts
 * import { globMatcher } from "./glob_match.ts";
 * const isTs = await globMatcher("*.ts");
 * console.assert(isTs("src/a.ts") && !isTs("src/a.js"));
 * ```
 */
export async function globMatcher(pattern: string): Promise<(relativePath: string) => boolean> {
  if (pattern.length > MAX_GLOB_CHARS) {
    throw new Error(
      `The glob is ${pattern.length} characters long; the most accepted is ${MAX_GLOB_CHARS}: use a shorter pattern, or several calls`,
    );
  }
  // As minimatch does: each leading `!` flips the result.
  const bangs = /^!*/.exec(pattern)![0].length;
  const negate = bangs % 2 === 1;
  const body = pattern.slice(bangs);
  // minimatch loads on the first call: a start that never runs find or grep does not pay for it.
  const { braceExpand } = await import("minimatch");
  const alternatives = [...new Set(braceExpand(body, { braceExpandMax: MAX_ALTERNATIVES + 1 }))];
  const expandedChars = alternatives.reduce((sum, alternative) => sum + alternative.length, 0);
  if (alternatives.length > MAX_ALTERNATIVES || expandedChars > MAX_EXPANDED_CHARS) {
    throw new Error(
      `The glob ${
        JSON.stringify(pattern.length > 200 ? `${pattern.slice(0, 200)}…` : pattern)
      } expands to more than ${MAX_ALTERNATIVES} patterns or ${MAX_EXPANDED_CHARS} characters (each {a,b} set multiplies them): use fewer brace sets, or several calls`,
    );
  }
  const compiled = alternatives.map(compilePattern);
  // A pattern without `/` matches the name at any depth (minimatch's matchBase).
  const matchBase = !body.includes("/");
  return (relativePath) => {
    const parts = relativePath.split("/");
    const path = (matchBase ? parts.slice(-1) : parts).map((part) => Array.from(part));
    return compiled.some((segments) => matchPath(segments, path)) !== negate;
  };
}

/** A pattern without braces as its segments, simplified as minimatch does. */
function compilePattern(glob: string): Segment[] {
  const parts: string[] = [];
  for (const part of glob.split(/\/+/)) {
    const previous = parts.at(-1);
    if (part === "**" && previous === "**") continue;
    // A relative path never holds a `.` segment, so `./src/*.ts` means `src/*.ts`.
    if (part === "." && parts.length === 0) continue;
    if (part === ".." && previous !== undefined && ![".", "..", "**"].includes(previous)) {
      parts.pop();
      continue;
    }
    parts.push(part);
  }
  return (parts.length === 0 ? [""] : parts).map(parseSegment);
}

function parseSegment(segment: string): Segment {
  if (segment === "**") return GLOBSTAR;
  const tokens: Token[] = [];
  const chars = Array.from(segment);
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!;
    if (char === "\\" && i + 1 < chars.length) {
      tokens.push({ kind: "char", char: chars[++i]! });
    } else if (char === "*") {
      if (tokens.at(-1)?.kind !== "star") tokens.push({ kind: "star" });
    } else if (char === "?") {
      tokens.push({ kind: "any" });
    } else if (char === "[") {
      const parsed = parseClass(chars, i);
      if (parsed) {
        tokens.push(parsed.token);
        i += parsed.length - 1;
      } else {
        tokens.push({ kind: "char", char });
      }
    } else {
      tokens.push({ kind: "char", char });
    }
  }
  return tokens;
}

/**
 * The classic wildcard match over segments: `**` takes any number of them,
 * and on a mismatch only the last `**` takes one more. A `**` at the end
 * must take at least one segment (`a/**` does not match `a`), as in minimatch.
 */
function matchPath(pattern: readonly Segment[], path: readonly string[][]): boolean {
  let p = 0;
  let s = 0;
  let starP = -1;
  let starS = 0;
  while (s < path.length) {
    const segment = pattern[p];
    if (segment === GLOBSTAR) {
      starP = p++;
      starS = s;
    } else if (segment !== undefined && matchSegment(segment, path[s]!)) {
      p++;
      s++;
    } else if (starP >= 0) {
      p = starP + 1;
      s = ++starS;
    } else {
      return false;
    }
  }
  return p === pattern.length;
}

/** The same algorithm within one segment, with `*` over characters. */
function matchSegment(tokens: readonly Token[], chars: readonly string[]): boolean {
  let t = 0;
  let c = 0;
  let starT = -1;
  let starC = 0;
  while (c < chars.length) {
    const token = tokens[t];
    if (token?.kind === "star") {
      starT = t++;
      starC = c;
    } else if (token !== undefined && matchesChar(token, chars[c]!)) {
      t++;
      c++;
    } else if (starT >= 0) {
      t = starT + 1;
      c = ++starC;
    } else {
      return false;
    }
  }
  while (tokens[t]?.kind === "star") t++;
  return t === tokens.length;
}

function matchesChar(token: Exclude<Token, { kind: "star" }>, char: string): boolean {
  if (token.kind === "any") return true;
  if (token.kind === "char") return token.char === char;
  // A regex for one character class tested on one character: it cannot backtrack.
  return token.regex !== undefined && token.regex.test(char);
}

/** minimatch's POSIX classes, as Unicode property escapes (source, negated). */
const POSIX_CLASSES: ReadonlyArray<readonly [string, string, boolean]> = [
  ["[:alnum:]", "\\p{L}\\p{Nl}\\p{Nd}", false],
  ["[:alpha:]", "\\p{L}\\p{Nl}", false],
  ["[:ascii:]", "\\x00-\\x7f", false],
  ["[:blank:]", "\\p{Zs}\\t", false],
  ["[:cntrl:]", "\\p{Cc}", false],
  ["[:digit:]", "\\p{Nd}", false],
  ["[:graph:]", "\\p{Z}\\p{C}", true],
  ["[:lower:]", "\\p{Ll}", false],
  ["[:print:]", "\\p{C}", false],
  ["[:punct:]", "\\p{P}", false],
  ["[:space:]", "\\p{Z}\\t\\r\\n\\v\\f", false],
  ["[:upper:]", "\\p{Lu}", false],
  ["[:word:]", "\\p{L}\\p{Nl}\\p{Nd}\\p{Pc}", false],
  ["[:xdigit:]", "A-Fa-f0-9", false],
];

/**
 * A bracket expression at `chars[start]` (`[`), read as minimatch's
 * `parseClass` reads it: `!` or `^` negates, a first `]` is literal, `\`
 * escapes, reversed ranges are dropped, `[:alpha:]` and the other POSIX
 * classes. `undefined` when it is not closed (the `[` is then literal).
 */
function parseClass(
  chars: readonly string[],
  start: number,
): { token: Token; length: number } | undefined {
  const ranges: string[] = [];
  const negated: string[] = [];
  let negate = false;
  let sawStart = false;
  let escaping = false;
  let rangeStart = "";
  let i = start + 1;
  const startsWith = (text: string, at: number) =>
    chars.slice(at, at + text.length).join("") === text;
  scan: while (true) {
    const c = chars[i];
    if (c === undefined) return undefined;
    if ((c === "!" || c === "^") && i === start + 1) {
      negate = true;
      i++;
      continue;
    }
    if (c === "]" && sawStart && !escaping) break;
    sawStart = true;
    if (c === "\\" && !escaping) {
      escaping = true;
      i++;
      continue;
    }
    if (c === "[" && !escaping) {
      for (const [name, source, isNegated] of POSIX_CLASSES) {
        if (!startsWith(name, i)) continue;
        // `[a-[:alpha:]]` is no valid class: minimatch then matches nothing.
        if (rangeStart) {
          return { token: { kind: "class", regex: undefined }, length: chars.length - start };
        }
        (isNegated ? negated : ranges).push(source);
        i += name.length;
        continue scan;
      }
    }
    escaping = false;
    if (rangeStart) {
      if (c > rangeStart) ranges.push(`${classEscape(rangeStart)}-${classEscape(c)}`);
      else if (c === rangeStart) ranges.push(classEscape(c));
      rangeStart = "";
      i++;
    } else if (chars[i + 1] === "-" && chars[i + 2] === "]") {
      ranges.push(classEscape(`${c}-`));
      i += 2;
    } else if (chars[i + 1] === "-") {
      rangeStart = c;
      i += 2;
    } else {
      ranges.push(classEscape(c));
      i++;
    }
  }
  const length = i + 1 - start;
  if (ranges.length === 0 && negated.length === 0) {
    return { token: { kind: "class", regex: undefined }, length };
  }
  const positive = `[${negate ? "^" : ""}${ranges.join("")}]`;
  const negative = `[${negate ? "" : "^"}${negated.join("")}]`;
  const source = ranges.length && negated.length
    ? `${positive}|${negative}`
    : ranges.length
    ? positive
    : negative;
  return { token: { kind: "class", regex: new RegExp(`^(?:${source})$`, "u") }, length };
}

function classEscape(text: string): string {
  return text.replace(/[[\]\\-]/g, "\\$&");
}
