/**
 * Reading prompt templates: one file's front matter at start-up, a whole
 * body when the template is used. Loaded only when there is a template.
 *
 * @module
 */
import { basename } from "node:path";
import type { ResourceScope } from "./discover_skills.ts";
import {
  FrontMatterError,
  parseFrontMatterYaml,
  readMarkdownBody,
  splitFrontMatter,
  stringField,
} from "./front_matter.ts";
import type { PromptTemplate } from "./prompt_templates.ts";
import { readHead } from "./read_head.ts";

/** pi cuts a first-line description at this many characters. */
const FIRST_LINE_CHARS = 60;

/**
 * A template's body, read in full when it is used.
 *
 * @param template The template.
 * @returns Its body without the front matter.
 * @throws {Error} When the file cannot be read any more, naming it.
 *
 * @example
 * ```ts
 * import { templateBody } from "./read_template.ts";
 * const filePath = Deno.makeTempFileSync({ suffix: ".md" });
 * Deno.writeTextFileSync(filePath, "---\ndescription: d\n---\nHello $1");
 * const body = await templateBody({ name: "t", description: "d", filePath, scope: "user" });
 * console.assert(body === "Hello $1");
 * Deno.removeSync(filePath);
 * ```
 */
export async function templateBody(template: PromptTemplate): Promise<string> {
  return await readMarkdownBody(template.filePath, `the prompt template /${template.name}`);
}

/**
 * Reads a template file's front matter (its beginning only).
 *
 * @param path The file.
 * @param scope Whose it is.
 * @param warnings Problems are added here, each naming the file.
 * @returns The template, or `undefined` when the file is no usable one.
 */
export async function readTemplate(
  path: string,
  scope: ResourceScope,
  warnings: string[],
): Promise<PromptTemplate | undefined> {
  const head = readHead(path);
  if (!head) return undefined;
  const name = basename(path, ".md");
  if (/\s/.test(name) || name === "") {
    warnings.push(`Prompt template ${path}: its file name has spaces, so no /command can name it`);
    return undefined;
  }
  const parts = splitFrontMatter(head.text);
  let fields: Record<string, unknown> = {};
  try {
    if (parts) fields = await parseFrontMatterYaml(parts.yaml);
  } catch (error) {
    if (!(error instanceof FrontMatterError)) throw error;
    warnings.push(`Prompt template ${path}: it ${error.message}: not loaded`);
    return undefined;
  }
  const body = parts?.body ?? head.text;
  const hint = stringField(fields, "argument-hint");
  return {
    name,
    description: stringField(fields, "description") ?? firstLine(body),
    ...(hint ? { argumentHint: hint } : {}),
    filePath: path,
    scope,
  };
}

/** pi's fallback description: the first non-empty line, cut at 60 characters. */
function firstLine(body: string): string {
  const line = body.split("\n").find((l) => l.trim())?.trim() ?? "";
  return line.length > FIRST_LINE_CHARS ? `${line.slice(0, FIRST_LINE_CHARS)}...` : line;
}
