/**
 * YAML front matter of Markdown files (skills' `SKILL.md`, prompt
 * templates): a block that opens the file with a `---` line and ends at the
 * next line starting with `---`, as pi and Claude Code read it.
 *
 * @module
 */

/** A Markdown file split at its front matter. */
export interface FrontMatterParts {
  /** The YAML between the fences. */
  yaml: string;
  /** The text after the closing fence, trimmed. */
  body: string;
}

/** Why a front matter block could not be read. */
export class FrontMatterError extends Error {
  /**
   * Creates the error.
   *
   * @param message What is wrong, without the file's path (callers add it).
   */
  constructor(message: string) {
    super(message);
    this.name = "FrontMatterError";
  }
}

/**
 * Splits a file's text at its front matter (line endings normalised to
 * `\n`), or gives `undefined` when it has none: the text does not start
 * with `---`, or no closing `---` line follows.
 *
 * @param text The file's text (or its beginning).
 * @returns The YAML and the body.
 *
 * @example
 * ```ts
 * import { splitFrontMatter } from "./front_matter.ts";
 * const parts = splitFrontMatter("---\nname: x\n---\n\nBody");
 * console.assert(parts?.yaml === "name: x" && parts.body === "Body");
 * ```
 */
export function splitFrontMatter(text: string): FrontMatterParts | undefined {
  const normalized = text.replace(/\r\n?/g, "\n");
  if (!normalized.startsWith("---")) return undefined;
  const end = normalized.indexOf("\n---", 3);
  if (end === -1) return undefined;
  return { yaml: normalized.slice(4, end), body: normalized.slice(end + 4).trim() };
}

/** A plain `key: value` line: the shape nearly every skill's front matter has. */
const SIMPLE_LINE = /^([A-Za-z0-9_-]+):(?:[ \t]+(.*))?$/;
/** Values yaml reads as numbers, nulls or booleans (their text could change). */
const YAML_SCALAR = /^(?:[+.\d~]|null$|true$|false$)/i;
/** Plain values starting with these are YAML syntax (YAML 1.2's indicator characters). */
const SPECIAL_START = /^[-?:,[\]{}#&*!|>'"%@`]/;

/**
 * The fields of front matter made of plain one-line `key: value` pairs, or
 * `undefined` for anything richer (quotes, block scalars, nested maps,
 * comments, continuation lines), which {@linkcode parseFrontMatterYaml}
 * leaves to the `yaml` package. Why by hand: loading that package costs
 * about 100 ms and it parses a small block in about 0.2 ms, so a thousand
 * skills would double panto's start-up, while this reads the common case
 * in microseconds and gives the same values.
 *
 * @param yaml The front matter's YAML.
 * @returns The fields (`true`/`false` as booleans, all else as strings).
 *
 * @example
 * ```ts
 * import { simpleFields } from "./front_matter.ts";
 * console.assert(simpleFields("name: pdf\ndescription: Reads PDFs.")?.description === "Reads PDFs.");
 * console.assert(simpleFields("description: >\n  folded") === undefined);
 * ```
 */
export function simpleFields(yaml: string): Record<string, unknown> | undefined {
  const fields: Record<string, unknown> = {};
  for (const line of yaml.split("\n")) {
    if (line.trim() === "") continue;
    const match = SIMPLE_LINE.exec(line);
    if (!match) return undefined;
    const key = match[1]!;
    const value = (match[2] ?? "").trim();
    if (Object.hasOwn(fields, key)) return undefined;
    if (value === "true" || value === "false") {
      fields[key] = value === "true";
      continue;
    }
    if (value === "" || SPECIAL_START.test(value) || YAML_SCALAR.test(value)) return undefined;
    if (/:(\s|$)|\s#/.test(value)) return undefined;
    fields[key] = value;
  }
  return fields;
}

/**
 * The fields of a front matter block: the fast reading of
 * {@linkcode simpleFields} when it applies, else the `yaml` package
 * (imported on first use).
 *
 * @param yaml The front matter's YAML.
 * @returns Its top-level fields.
 * @throws {FrontMatterError} When the YAML is invalid or not a mapping.
 *
 * @example
 * ```ts
 * import { parseFrontMatterYaml } from "./front_matter.ts";
 * const fields = await parseFrontMatterYaml('description: "Reads: PDFs"');
 * console.assert(fields.description === "Reads: PDFs");
 * ```
 */
export async function parseFrontMatterYaml(yaml: string): Promise<Record<string, unknown>> {
  const simple = simpleFields(yaml);
  if (simple) return simple;
  const { parse } = await import("yaml");
  let parsed: unknown;
  try {
    parsed = parse(yaml);
  } catch (error) {
    const first = String((error as Error).message).split("\n", 1)[0];
    throw new FrontMatterError(`has invalid YAML front matter (${first})`);
  }
  if (parsed === null || parsed === undefined) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new FrontMatterError("has front matter that is not a YAML mapping of fields");
  }
  return parsed as Record<string, unknown>;
}

/**
 * A field as a trimmed string, or `undefined` when it is absent, empty or
 * not a string (a number such as `version: 1.0` reads as its text).
 *
 * @param fields Front matter fields.
 * @param key The field.
 * @returns Its text.
 *
 * @example
 * ```ts
 * import { stringField } from "./front_matter.ts";
 * console.assert(stringField({ name: " pdf " }, "name") === "pdf");
 * console.assert(stringField({ name: [] }, "name") === undefined);
 * ```
 */
export function stringField(fields: Record<string, unknown>, key: string): string | undefined {
  const value = fields[key];
  const text = typeof value === "string"
    ? value
    : typeof value === "number" || typeof value === "boolean"
    ? String(value)
    : undefined;
  return text?.trim() || undefined;
}

/**
 * A Markdown prompt file's body: the text after its front matter (or the
 * whole text, line ends made `\n`), trimmed.
 *
 * @param path The file.
 * @param what What it is, for the error (`the skill pdf`).
 * @returns The body.
 * @throws {Error} Naming `what`, the path and why, when it cannot be read.
 *
 * @example
 * ```ts
 * import { readMarkdownBody } from "./front_matter.ts";
 * const path = Deno.makeTempFileSync({ suffix: ".md" });
 * Deno.writeTextFileSync(path, "---\ndescription: d\n---\nHello $1\n");
 * console.assert(await readMarkdownBody(path, "the template t") === "Hello $1");
 * Deno.removeSync(path);
 * ```
 */
export async function readMarkdownBody(path: string, what: string): Promise<string> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    throw new Error(`Cannot read ${what} (${path}): ${(error as Error).message}`);
  }
  return splitFrontMatter(text)?.body ?? text.replace(/\r\n?/g, "\n").trim();
}
