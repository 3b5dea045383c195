import { dirname, join, resolve } from "node:path";
import { FileRefusedError, readRegularTextFile } from "../config/read_regular_file.ts";
import type { Skill } from "../skills/discover_skills.ts";
import { skillsPromptSection } from "../skills/skills_prompt.ts";

/** What each built-in tool is for, in one line for the system prompt. */
const TOOL_SUMMARIES: Record<string, string> = {
  read: "read a file (text with line numbers; offset/limit for long files) or view an image",
  write: "create a file or replace one completely",
  edit: "replace exact text in a file (the precise way to change existing code)",
  bash: "run a shell command in the working directory (tests, builds, git, …)",
  ls: "list a directory",
  grep: "search file contents with a regular expression",
  find: "find files by glob pattern",
};

/**
 * Reads a file's text, or gives `undefined` when it does not exist or may
 * not be read; throws a `FileRefusedError` for a file that is not a regular
 * file or is too large.
 */
export type ReadTextFile = (path: string) => Promise<string | undefined>;

/** Options for {@linkcode buildSystemPrompt}. */
export interface SystemPromptOptions {
  /** The working directory. */
  cwd: string;
  /** panto's home directory (its `AGENTS.md` applies to every project). */
  pantoHome: string;
  /** The names of the tools offered. */
  toolNames: readonly string[];
  /**
   * `--system-prompt`: replaces the built-in default (AGENTS.md files are
   * still added); without it, `.panto/SYSTEM.md` or `$PANTO_HOME/SYSTEM.md` does.
   */
  override?: string | undefined;
  /**
   * `--append-system-prompt`: added at the end; without it,
   * `.panto/APPEND_SYSTEM.md` or `$PANTO_HOME/APPEND_SYSTEM.md` is.
   */
  append?: string | undefined;
  /** Include AGENTS.md and CLAUDE.md files (`--no-context-files` turns this off). Default true. */
  contextFiles?: boolean;
  /** The skills to list (only when the `read` tool is offered: the model reads them with it). */
  skills?: readonly Skill[];
  /** Reads a file (default: the file system, skipping files panto may not read). */
  readFile?: ReadTextFile;
  /** Today (for the date in the default prompt). */
  date?: Date;
}

/** The assembled system prompt and the instruction files it includes. */
export interface SystemPrompt {
  /** The prompt text. */
  text: string;
  /** The AGENTS.md and CLAUDE.md files that were included, in prompt order. */
  agentsFiles: string[];
  /** Their texts as included (trimmed), in the same order. */
  agentsTexts: string[];
  /** The SYSTEM.md and APPEND_SYSTEM.md files used. */
  promptFiles: string[];
  /** Instruction files that were skipped and why, for the user. */
  warnings: string[];
}

/**
 * The built-in system prompt: who panto is, its tools, guidelines, the
 * working directory and the date.
 *
 * @param cwd The working directory.
 * @param toolNames The tools offered.
 * @param date Today.
 * @returns The prompt.
 *
 * @example
 * ```ts
 * import { defaultSystemPrompt } from "./system_prompt.ts";
 * console.assert(defaultSystemPrompt("/work", ["read"]).includes("Working directory: /work"));
 * ```
 */
export function defaultSystemPrompt(
  cwd: string,
  toolNames: readonly string[],
  date: Date = new Date(),
): string {
  return [
    "You are panto, a coding agent working in the user's project from their terminal. You help by reading and changing code, running commands, and answering questions about the project.",
    toolSection(toolNames),
    guidelineSection(new Set(toolNames)),
    `Working directory: ${cwd}\nToday's date: ${date.toISOString().slice(0, 10)}`,
  ].join("\n\n");
}

/** The instruction files read in each directory, in this order (Claude Code's beside pi's and Codex's). */
export const CONTEXT_FILE_NAMES: readonly string[] = ["AGENTS.md", "CLAUDE.md"];

/**
 * The context files (`AGENTS.md`, then `CLAUDE.md`, of each directory) that
 * may apply, in prompt order: `$PANTO_HOME`'s, then those of each directory
 * from the file system root down to the working directory (more specific
 * ones last, so they win).
 *
 * @param cwd The working directory.
 * @param pantoHome panto's home directory.
 * @returns Absolute candidate paths, without duplicates.
 *
 * @example
 * ```ts
 * import { agentsFileCandidates } from "./system_prompt.ts";
 * const paths = agentsFileCandidates("/work", "/home/ada/.panto");
 * console.assert(paths.join() === "/home/ada/.panto/AGENTS.md,/home/ada/.panto/CLAUDE.md,/AGENTS.md,/CLAUDE.md,/work/AGENTS.md,/work/CLAUDE.md");
 * ```
 */
export function agentsFileCandidates(cwd: string, pantoHome: string): string[] {
  const dirs: string[] = [];
  for (let dir = resolve(cwd);; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  return [
    ...new Set(
      [resolve(pantoHome), ...dirs].flatMap((dir) =>
        CONTEXT_FILE_NAMES.map((name) => join(dir, name))
      ),
    ),
  ];
}

/**
 * The system prompt: the built-in default (or `override`, else a
 * `SYSTEM.md`: the project's `.panto/SYSTEM.md`, else `$PANTO_HOME`'s), then
 * every `AGENTS.md` and `CLAUDE.md` found (see
 * {@linkcode agentsFileCandidates}) under a heading naming its path, then
 * the skills (when the `read` tool is offered), then `append` (else an
 * `APPEND_SYSTEM.md`, the project's before `$PANTO_HOME`'s). An instruction
 * file that is not a regular file (a named pipe, a device) or is over 1 MiB
 * is skipped with a warning, and so is one that belongs to neither the
 * working directory's owner nor root: any user may write `/tmp/AGENTS.md`,
 * and instructions are the model's orders.
 *
 * @param options Working directory, home, tools, overrides, skills, file reader.
 * @returns The prompt and the files it includes.
 *
 * @example
 * ```ts
 * import { buildSystemPrompt } from "./system_prompt.ts";
 * const files = new Map([["/work/AGENTS.md", "Use tabs."]]);
 * const prompt = await buildSystemPrompt({
 *   cwd: "/work", pantoHome: "/home/ada/.panto", toolNames: ["read"],
 *   readFile: (path) => Promise.resolve(files.get(path)),
 * });
 * console.assert(prompt.text.includes("## /work/AGENTS.md\n\nUse tabs."));
 * ```
 */
export async function buildSystemPrompt(options: SystemPromptOptions): Promise<SystemPrompt> {
  const readFile = options.readFile ?? await ownersReader(options.cwd);
  const warnings: string[] = [];
  const read = async (path: string): Promise<string | undefined> => {
    try {
      return (await readFile(path))?.trim() || undefined;
    } catch (error) {
      if (!(error instanceof FileRefusedError)) throw error;
      warnings.push(`Skipped ${path}: it ${error.message}`);
      return undefined;
    }
  };
  const promptFiles: string[] = [];
  const firstFile = async (name: string): Promise<string | undefined> => {
    for (const dir of [join(resolve(options.cwd), ".panto"), resolve(options.pantoHome)]) {
      const text = await read(join(dir, name));
      if (text === undefined) continue;
      promptFiles.push(join(dir, name));
      return text;
    }
    return undefined;
  };
  const sections = [
    options.override ?? await firstFile("SYSTEM.md") ??
      defaultSystemPrompt(options.cwd, options.toolNames, options.date),
  ];
  const agentsFiles: string[] = [];
  const agentsTexts: string[] = [];
  const instructions: string[] = [];
  const candidates = options.contextFiles === false
    ? []
    : agentsFileCandidates(options.cwd, options.pantoHome);
  for (const path of candidates) {
    const text = await read(path);
    if (text === undefined) continue;
    agentsFiles.push(path);
    agentsTexts.push(text);
    instructions.push(`## ${path}\n\n${text}`);
  }
  if (instructions.length) {
    sections.push(
      `# Project instructions\n\nThe user and the project give these instructions in AGENTS.md and CLAUDE.md files, general ones first; where they disagree, the later (more specific) ones win.\n\n${
        instructions.join("\n\n")
      }`,
    );
  }
  if (options.toolNames.includes("read")) sections.push(skillsPromptSection(options.skills ?? []));
  const append = options.append ?? await firstFile("APPEND_SYSTEM.md");
  if (append) sections.push(append);
  return {
    text: sections.filter(Boolean).join("\n\n"),
    agentsFiles,
    agentsTexts,
    promptFiles,
    warnings,
  };
}

function toolSection(toolNames: readonly string[]): string {
  if (toolNames.length === 0) {
    return "No tools are available in this session: answer from the conversation alone.";
  }
  const lines = toolNames.map((name) =>
    `- ${name}${TOOL_SUMMARIES[name] ? `: ${TOOL_SUMMARIES[name]}` : ""}`
  );
  return `Tools (paths are relative to the working directory):\n${lines.join("\n")}`;
}

function guidelineSection(tools: ReadonlySet<string>): string {
  const lines: string[] = [];
  if (tools.has("read") && (tools.has("edit") || tools.has("write"))) {
    lines.push(
      "Read a file before changing it, and make the smallest change that solves the task.",
    );
  }
  if (tools.has("edit")) {
    lines.push(
      "Change existing files with edit; use write only for new files or complete rewrites.",
    );
  }
  if (tools.has("grep") || tools.has("find") || tools.has("ls")) {
    lines.push("Explore with grep, find and ls rather than shell commands for the same job.");
  }
  if (tools.has("bash")) {
    lines.push(
      "After changing code, run the project's tests, type checker or linter when it has them, and fix what you broke.",
      "Do not run destructive commands (deleting files, git reset --hard, force pushes) unless the user asked for them.",
    );
  }
  lines.push(
    "Follow the project's conventions (style, structure, libraries) as you find them in the code and in its instructions.",
    "Be concise. Name files with their paths. When done, say what you changed and how you checked it; say so plainly if something failed or is unfinished.",
  );
  return `Guidelines:\n${lines.map((line) => `- ${line}`).join("\n")}`;
}

/**
 * A reader of the instruction files the working directory's owner (the
 * user, who may not be asked for their uid without another permission) or
 * root own.
 */
async function ownersReader(
  cwd: string,
): Promise<(path: string) => Promise<string | undefined>> {
  const owner = (await Deno.stat(cwd)).uid;
  return (path) => readPermittedFile(path, owner);
}

/** Reads a file when panto may; asking first avoids Deno's interactive permission prompt. */
async function readPermittedFile(
  path: string,
  owner: number | null,
): Promise<string | undefined> {
  const permission = await Deno.permissions.query({ name: "read", path });
  if (permission.state !== "granted") return undefined;
  const uid = await Deno.stat(path).then((info) => info.uid, () => null);
  if (uid !== null && owner !== null && uid !== owner && uid !== 0) {
    throw new FileRefusedError(
      `belongs to another user (uid ${uid}); panto reads instruction files only from the owner of the working directory and root`,
    );
  }
  try {
    return await readRegularTextFile(path);
  } catch (error) {
    // A directory named AGENTS.md is not an instruction file: nothing to warn about.
    if (error instanceof FileRefusedError && error.isDirectory) return undefined;
    throw error;
  }
}
