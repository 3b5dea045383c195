/**
 * What "always allow for this session" remembers: a tool by name, and for
 * `bash` the command's first word (its program), so that allowing
 * `git status` always also allows `git diff` but not `rm`.
 *
 * @module
 */
import type { ToolCall } from "@panto/lib";

/**
 * Shell syntax that runs more than one program or redirects: a command
 * holding any of it is only ever allowed by its exact text, since its first
 * word says nothing about the rest (`git status; rm -rf ~`).
 */
const COMPOUND = /[;&|<>`\n]|\$\(/;

/** What answering "always" to a call allows from then on. */
export interface AlwaysScope {
  /** The key it is remembered by. */
  key: string;
  /** What it allows, for the question (e.g. ``bash commands starting with `git` ``). */
  label: string;
}

/**
 * The scope "always" would remember for `call`: the tool, or for a simple
 * `bash` command its first word, or for a compound one its exact text.
 *
 * @param call The call being asked about.
 * @returns The key and its label.
 *
 * @example
 * ```ts
 * import { alwaysScope } from "./always_allowed.ts";
 * console.assert(alwaysScope({ id: "1", name: "write", input: {} }).label === "every write call");
 * const git = alwaysScope({ id: "2", name: "bash", input: { command: "git status" } });
 * console.assert(git.label === "bash commands starting with `git`");
 * ```
 */
export function alwaysScope(call: ToolCall): AlwaysScope {
  const command = bashCommand(call);
  if (command === undefined) return { key: `tool ${call.name}`, label: `every ${call.name} call` };
  if (COMPOUND.test(command)) {
    return { key: `command ${command}`, label: "this exact bash command" };
  }
  const program = command.split(/\s+/, 1)[0] ?? "";
  return { key: `program ${program}`, label: `bash commands starting with \`${program}\`` };
}

/**
 * The scopes the user allowed for the rest of the session.
 *
 * @example
 * ```ts
 * import { AlwaysAllowed } from "./always_allowed.ts";
 * const allowed = new AlwaysAllowed();
 * allowed.remember({ id: "1", name: "bash", input: { command: "git status" } });
 * console.assert(allowed.allows({ id: "2", name: "bash", input: { command: "git diff" } }));
 * console.assert(!allowed.allows({ id: "3", name: "bash", input: { command: "git diff; rm x" } }));
 * ```
 */
export class AlwaysAllowed {
  readonly #keys = new Set<string>();

  /** Remembers the scope of `call` (see {@linkcode alwaysScope}). */
  remember(call: ToolCall): void {
    this.#keys.add(alwaysScope(call).key);
  }

  /** Whether an earlier "always" covers `call`. */
  allows(call: ToolCall): boolean {
    return this.#keys.has(alwaysScope(call).key);
  }

  /** Forgets everything (another session). */
  clear(): void {
    this.#keys.clear();
  }
}

/** The command of a `bash` call, trimmed; undefined for other tools. */
function bashCommand(call: ToolCall): string | undefined {
  if (call.name !== "bash") return undefined;
  const command = call.input.command;
  return typeof command === "string" ? command.trim() : "";
}
