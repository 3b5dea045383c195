/**
 * The parts of `panto --help` and `panto sessions --help` that are not
 * options: examples and the environment variables panto reads.
 *
 * @module
 */
import { lineBreak, type Message, text } from "@optique/core/message";

/** Lines as one help message (optique would otherwise run them together). */
function lines(...rows: readonly string[]): Message {
  return rows.flatMap((row, i) => i === 0 ? [text(row)] : [lineBreak(), text(row)]);
}

/** Rows of two columns, the second aligned after the widest first cell that has one. */
function table(rows: readonly (readonly [string, string])[], indent = ""): string[] {
  const width = Math.max(...rows.filter(([, right]) => right).map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) =>
    right === "" ? indent + left : indent + left.padEnd(width) + right
  );
}

/** `panto --help`: what a first session looks like (optique indents them). */
export const MAIN_EXAMPLES: Message = lines(...table([
  ["panto", "chat in this directory"],
  ["panto -c", "continue this directory's latest session"],
  ["panto -r", "pick a session to resume"],
  ['panto -p "what does main.ts do?"', "one answer, printed"],
  ['panto -p "read main.ts" "list its exports"', "two prompts in turn, the last answer printed"],
  ["git diff | panto -p 'review this'", "a prompt on stdin"],
  ["panto -m sonnet --thinking high", "a config alias and a reasoning level"],
  ["panto --mode rpc", "JSON-lines commands on stdin (docs/rpc.md)"],
  ["panto acp", "serve an editor over the Agent Client Protocol (docs/acp.md)"],
  ["panto sessions --all", "every directory's saved sessions"],
  ["panto --api openai-chat --base-url http://localhost:8080/v1 -m qwen3", ""],
  ["panto completion bash > ~/.local/share/bash-completion/completions/panto", ""],
]));

/** `panto --help`: the environment. */
export const MAIN_ENVIRONMENT: Message = lines(
  "Environment:",
  ...table([
    ["PANTO_HOME", "config, sessions and extensions (default ~/.panto)"],
    ["ANTHROPIC_API_KEY", "key of the built-in anthropic provider"],
    ["OPENAI_API_KEY", "key of the built-in openai provider"],
    ["NO_COLOR", "plain output without colours"],
    ["PANTO_CWD", "the directory to work in (set by `deno task panto`)"],
  ], "  "),
  'Any other key variable is named by a provider\'s "apiKeyEnv" in config.json or by --api-key-env.',
);

/** `panto sessions --help`: the actions. */
export const SESSIONS_ACTIONS_HELP: Message = lines(
  "Actions:",
  ...table([
    ["list", "this directory's sessions (--all: every directory's; --json)"],
    ["show ID", "the session as Markdown"],
    ["export ID [PATH]", "the same, or to PATH as .html, .md or .jsonl (--format, --force)"],
    ["import FILE", "a JSONL export, a pi session or a Claude Code transcript, as a new session"],
    ["rename ID NAME", "give it a name"],
    ["rm ID", "delete it"],
    ["repair ID", "jsonl: keep the valid lines, back up the damaged file"],
    [
      "migrate --to KIND",
      "move every session into another store (--to-url FILE|DIR|URL, --wait SECONDS)",
    ],
  ], "  "),
  "ID is a session id or a unique prefix of one.",
);
