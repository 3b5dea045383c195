/**
 * Prompt templates: Markdown files whose name becomes a `/name` command
 * that sends the file's body, with the arguments filled in, as the user's
 * prompt (pi's format: optional front matter with `description` and
 * `argument-hint`). Start-up reads only each file's beginning.
 *
 * @module
 */
import { basename, join } from "node:path";
import type { ResourceScope } from "./discover_skills.ts";
import {
  FrontMatterError,
  parseFrontMatterYaml,
  readMarkdownBody,
  splitFrontMatter,
  stringField,
} from "./front_matter.ts";
import { readHead } from "./read_head.ts";

/** A directory of prompt templates (`*.md` directly in it; not searched deeper, as in pi). */
export interface TemplatePlace {
  /** The directory. */
  dir: string;
  /** Whose templates these are. */
  scope: ResourceScope;
}

/** A prompt template found at start-up. */
export interface PromptTemplate {
  /** The command name: the file name without `.md`. */
  name: string;
  /** For completion and `/help`: the `description` field, else the body's first line. */
  description: string;
  /** `argument-hint`, shown before the description (e.g. `<file> [focus]`). */
  argumentHint?: string;
  /** The file, absolute. */
  filePath: string;
  /** Whose it is. */
  scope: ResourceScope;
}

/** Most templates read over all places. */
export const MAX_TEMPLATES = 2000;
/** Longest description taken from a body's first line. */
const FIRST_LINE_CHARS = 60;

/**
 * Finds the prompt templates of the places, earlier places first; of two
 * with one name the first wins and the other is named in a warning, and so
 * is one whose name a built-in command has.
 *
 * @param places Where to look.
 * @param reserved Command names templates may not take (the built-in ones).
 * @returns The templates and the warnings.
 *
 * @example
 * ```ts
 * import { discoverTemplates } from "./prompt_templates.ts";
 * const dir = Deno.makeTempDirSync();
 * Deno.writeTextFileSync(`${dir}/review.md`, "---\ndescription: Review a file\n---\nReview $1");
 * const found = await discoverTemplates([{ dir, scope: "user" }]);
 * console.assert(found.templates[0]?.description === "Review a file");
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export async function discoverTemplates(
  places: readonly TemplatePlace[],
  reserved: ReadonlySet<string> = new Set(),
): Promise<{ templates: PromptTemplate[]; warnings: string[] }> {
  const byName = new Map<string, PromptTemplate>();
  const warnings: string[] = [];
  for (const { path, place } of templateFiles(places)) {
    const template = await readTemplate(path, place.scope, warnings);
    if (!template) continue;
    const winner = byName.get(template.name);
    if (reserved.has(template.name) || winner) {
      warnings.push(
        `Prompt template ${path} is not loaded: ${
          winner ? winner.filePath : "a built-in command"
        } has the name /${template.name}${winner ? " and was found first" : ""}`,
      );
      continue;
    }
    byName.set(template.name, template);
  }
  return { templates: [...byName.values()], warnings };
}

/**
 * A template's body, read in full when it is used.
 *
 * @param template The template.
 * @returns Its body without the front matter.
 * @throws {Error} When the file cannot be read any more, naming it.
 *
 * @example
 * ```ts
 * import { templateBody } from "./prompt_templates.ts";
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

function templateFiles(places: readonly TemplatePlace[]): { path: string; place: TemplatePlace }[] {
  const files: { path: string; place: TemplatePlace }[] = [];
  for (const place of places) {
    for (const name of markdownFiles(place.dir)) {
      if (files.length >= MAX_TEMPLATES) return files;
      files.push({ path: join(place.dir, name), place });
    }
  }
  return files;
}

/** The `.md` files directly in a directory, sorted (none when it is missing or not granted). */
function markdownFiles(dir: string): string[] {
  try {
    return [...Deno.readDirSync(dir)]
      .filter((entry) => !entry.isDirectory && entry.name.endsWith(".md"))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

async function readTemplate(
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
