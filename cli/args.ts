import { run } from "@optique/run";
import { object } from "@optique/core/constructs";
import { message } from "@optique/core/message";
import { multiple, optional } from "@optique/core/modifiers";
import { argument, flag, option } from "@optique/core/primitives";
import { choice, integer, string } from "@optique/core/valueparser";
import { API_STYLES, REASONING_LEVELS } from "@panto/lib";
import { VERSION } from "./version.ts";

const parser = object({
  print: optional(
    flag("-p", "--print", { description: message`Answer one prompt and print the result` }),
  ),
  mode: optional(option("--mode", choice(["text", "json"]), {
    description: message`Output of print mode: text (final answer) or json (every event)`,
  })),
  api: optional(
    option("--api", choice(API_STYLES), {
      description: message`Wire protocol of an ad hoc provider`,
    }),
  ),
  baseUrl: optional(option("--base-url", string({ metavar: "URL" }), {
    description: message`Base URL of an ad hoc provider (Anthropic without /v1, OpenAI with it)`,
  })),
  model: optional(
    option("-m", "--model", string({ metavar: "MODEL" }), { description: message`Model name` }),
  ),
  apiKeyEnv: optional(option("--api-key-env", string({ metavar: "NAME" }), {
    description: message`Environment variable holding the API key`,
  })),
  thinking: optional(
    option("--thinking", choice(REASONING_LEVELS), { description: message`Reasoning level` }),
  ),
  systemPrompt: optional(option("--system-prompt", string({ metavar: "TEXT" }), {
    description: message`Replace the default system prompt`,
  })),
  appendSystemPrompt: optional(option("--append-system-prompt", string({ metavar: "TEXT" }), {
    description: message`Append to the system prompt`,
  })),
  maxTurns: optional(option("--max-turns", integer({ min: 1 }), {
    description: message`Most model requests for one prompt`,
  })),
  messages: multiple(
    argument(string({ metavar: "MESSAGE" }), { description: message`The prompt` }),
  ),
});

/** The parsed command line. */
export interface CliArgs {
  /** Print mode. */
  print: boolean;
  /** Output format of print mode. */
  mode: "text" | "json";
  /** Ad hoc provider protocol. */
  api: (typeof API_STYLES)[number] | undefined;
  /** Ad hoc provider base URL. */
  baseUrl: string | undefined;
  /** Model name. */
  model: string | undefined;
  /** Environment variable holding the key. */
  apiKeyEnv: string | undefined;
  /** Reasoning level. */
  thinking: (typeof REASONING_LEVELS)[number] | undefined;
  /** Replacement system prompt. */
  systemPrompt: string | undefined;
  /** Text appended to the system prompt. */
  appendSystemPrompt: string | undefined;
  /** Turn limit. */
  maxTurns: number | undefined;
  /** Positional message words. */
  messages: readonly string[];
}

/**
 * Parses the command line. `--help` and `--version` print and exit 0; a
 * usage error prints the problem and exits 2.
 *
 * @param args The arguments (without the program name).
 * @returns The parsed arguments.
 */
export function parseArgs(args: readonly string[]): CliArgs {
  const parsed = run(parser, {
    programName: "panto",
    args,
    help: "option",
    version: VERSION,
    colors: false,
    onExit: (code) => Deno.exit(code === 0 ? 0 : 2),
  });
  return {
    print: parsed.print ?? false,
    mode: parsed.mode ?? "text",
    api: parsed.api,
    baseUrl: parsed.baseUrl,
    model: parsed.model,
    apiKeyEnv: parsed.apiKeyEnv,
    thinking: parsed.thinking,
    systemPrompt: parsed.systemPrompt,
    appendSystemPrompt: parsed.appendSystemPrompt,
    maxTurns: parsed.maxTurns,
    messages: parsed.messages,
  };
}
