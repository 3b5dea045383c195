/**
 * Prompt templates: Markdown files whose name becomes a `/name` command
 * that sends the file's body, with the arguments filled in, as the user's
 * prompt (pi's format: optional front matter with `description` and
 * `argument-hint`). Start-up reads only each file's beginning.
 *
 * @module
 */
import { join } from "node:path";
import type { ResourceScope } from "./discover_skills.ts";

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
  const files = templateFiles(places);
  if (files.length === 0) return { templates: [], warnings };
  // The front-matter code loads once there is a template to read.
  const { readTemplate } = await import("./read_template.ts");
  for (const { path, place } of files) {
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
