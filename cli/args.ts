import { merge, object, or } from "@optique/core/constructs";
import { runParser } from "@optique/core/facade";
import { message } from "@optique/core/message";
import { multiple, optional } from "@optique/core/modifiers";
import { argument, command, flag, option } from "@optique/core/primitives";
import { choice, integer, string } from "@optique/core/valueparser";
import { API_STYLES, type ApiStyle, REASONING_LEVELS, type ReasoningLevel } from "@panto/lib";
import { SESSIONS_ACTIONS, type SessionsArgs } from "./commands/sessions.ts";
import { type CompletionValues, suggesting } from "./completion_values.ts";
import { MAIN_ENVIRONMENT, MAIN_EXAMPLES, SESSIONS_ACTIONS_HELP } from "./help_text.ts";
import type { McpServerSettings } from "./config/panto_config.ts";
import { redactSecrets } from "./config/redact_secrets.ts";
import { UsageError } from "./errors.ts";
import { STORE_KINDS, type StoreFlags, type StoreKind } from "./session_store.ts";
import { writeStderr } from "./stdio.ts";
import { VERSION } from "./version.ts";

/** Marks `-r/--resume` given without an id (open the picker). */
const PICK = "\u0000pick";

/** What `-m`, `-r` and session ids complete to (set for a completion request). */
let completion: CompletionValues = { models: [], sessions: [] };
const sessionId = () => suggesting(string({ metavar: "ID" }), () => completion.sessions);

const storeOptions = object({
  noSession: optional(
    flag("--no-session", { description: message`Keep nothing: do not save this session` }),
  ),
  sessionDir: optional(option("--session-dir", string({ metavar: "DIR" }), {
    description: message`Directory of the jsonl session store (default $PANTO_HOME/sessions)`,
  })),
  store: optional(option("--store", choice(STORE_KINDS, { metavar: "KIND" }), {
    description: message`Session store (default jsonl)`,
  })),
  storeUrl: optional(option("--store-url", string({ metavar: "URL" }), {
    description: message`SQLite file or postgres:// URL of the session store`,
  })),
});

const modelOptions = object({
  model: optional(option(
    "-m",
    "--model",
    suggesting(string({ metavar: "MODEL" }), () => completion.models),
    {
      description: message`Model: a config alias or provider/model`,
    },
  )),
  thinking: optional(
    option("--thinking", choice(REASONING_LEVELS, { metavar: "LEVEL" }), {
      description: message`Reasoning level (default: the model's in the config)`,
    }),
  ),
  api: optional(
    option("--api", choice(API_STYLES, { metavar: "API" }), {
      description: message`Wire protocol of an ad hoc provider`,
    }),
  ),
  baseUrl: optional(option("--base-url", string({ metavar: "URL" }), {
    description: message`Base URL of an ad hoc provider (Anthropic without /v1, OpenAI with it)`,
  })),
  apiKeyEnv: optional(option("--api-key-env", string({ metavar: "NAME" }), {
    description: message`Environment variable holding the API key`,
  })),
});

const promptFields = {
  print: optional(
    flag("-p", "--print", { description: message`Answer one prompt, print the result, exit` }),
  ),
  mode: optional(option("--mode", choice(["text", "json", "rpc"], { metavar: "MODE" }), {
    description:
      message`Output of print mode: text (the final answer) or json (every event as a line); rpc: serve JSON-lines commands on stdin (docs/rpc.md)`,
  })),
  continueLast: optional(
    flag("-c", "--continue", {
      description: message`Continue this directory's latest session (a new one when it has none)`,
    }),
  ),
  resume: optional(option("-r", "--resume", sessionId(), {
    description: message`Resume a session by id or prefix (a picker without an id)`,
  })),
  fork: optional(option("--fork", sessionId(), {
    description: message`Start a new session from a copy of session ID's current branch`,
  })),
  systemPrompt: optional(option("--system-prompt", string({ metavar: "TEXT" }), {
    description: message`Replace the default system prompt`,
  })),
  appendSystemPrompt: optional(option("--append-system-prompt", string({ metavar: "TEXT" }), {
    description: message`Append to the system prompt`,
  })),
  tools: optional(option("--tools", string({ metavar: "NAMES" }), {
    description:
      message`Comma-separated built-in tools to offer (read,write,edit,bash,ls,grep,find)`,
  })),
  noTools: optional(flag("--no-tools", { description: message`Offer no built-in tools` })),
  extensions: multiple(option("-e", "--extension", string({ metavar: "PATH" }), {
    description: message`Load an extension module (repeatable)`,
  })),
  noExtensions: optional(
    flag("--no-extensions", {
      description: message`Load no extensions from the panto directories`,
    }),
  ),
  mcpConfig: multiple(option("--mcp-config", string({ metavar: "FILE" }), {
    description: message`Start the MCP servers of a JSON file ({ "mcpServers": … }; repeatable)`,
  })),
  maxTurns: optional(option("--max-turns", integer({ min: 1 }), {
    description: message`Most model requests for one prompt (default 50)`,
  })),
  trustProjectConfig: optional(flag("--trust-project-config", {
    description:
      message`Trust this project's .panto/config.json as it is now (its providers, keys, headers, allowed paths, MCP servers); remembered until the file changes`,
  })),
};

const promptOptions = object({
  ...promptFields,
  messages: multiple(argument(string({ metavar: "MESSAGE" }), {
    description: message`Initial prompt; @path attaches a file`,
  })),
});

const sessionsCommand = command(
  "sessions",
  merge(
    object({
      action: optional(
        argument(choice(SESSIONS_ACTIONS, { metavar: "ACTION" }), {
          description: message`What to do (default list; see Actions below)`,
        }),
      ),
      id: optional(argument(sessionId(), { description: message`A session id or unique prefix` })),
      name: optional(argument(string({ metavar: "NAME" }), {
        description: message`rename: the new name`,
      })),
      json: optional(flag("--json", { description: message`List as JSON` })),
      all: optional(flag("-a", "--all", {
        description: message`List every directory's sessions (default: this directory's)`,
      })),
      stale: optional(option("--stale", integer({ min: 0, metavar: "MINUTES" }), {
        description: message`List only sessions whose turn has been running that long or longer`,
      })),
      to: optional(option("--to", choice(STORE_KINDS, { metavar: "KIND" }), {
        description: message`migrate: the store to move every session into`,
      })),
      toUrl: optional(option("--to-url", string({ metavar: "URL" }), {
        description: message`migrate: its directory, SQLite file or postgres:// URL`,
      })),
    }),
    storeOptions,
  ),
  {
    description:
      message`List, show, rename, export, repair or delete saved sessions, or move them all to another store`,
    footer: SESSIONS_ACTIONS_HELP,
  },
);

const mainParser = merge(promptOptions, modelOptions, storeOptions);

/** Flags of the chat and print modes. */
export interface ChatArgs extends StoreFlags {
  /** Discriminator. */
  command: "chat";
  /** Print mode. */
  print: boolean;
  /** Print mode output (`text`, `json`), `rpc` for RPC mode, `acp` for `panto acp`. */
  mode: "text" | "json" | "rpc" | "acp";
  /** `-m`. */
  model: string | undefined;
  /** `--thinking`. */
  thinking: ReasoningLevel | undefined;
  /** `--api`. */
  api: ApiStyle | undefined;
  /** `--base-url`. */
  baseUrl: string | undefined;
  /** `--api-key-env`. */
  apiKeyEnv: string | undefined;
  /** `-c`. */
  continueLast: boolean;
  /** `-r ID`; `""` means "pick one". */
  resume: string | undefined;
  /** `--fork ID`: a new session copied from that session's active path. */
  fork?: string;
  /** `--system-prompt`. */
  systemPrompt: string | undefined;
  /** `--append-system-prompt`. */
  appendSystemPrompt: string | undefined;
  /** `--tools` split on commas. */
  tools: string[] | undefined;
  /** `--no-tools`. */
  noTools: boolean;
  /** `-e` paths. */
  extensions: readonly string[];
  /** `--no-extensions`. */
  noExtensions: boolean;
  /** `--mcp-config` files (absent: none). */
  mcpConfig?: readonly string[];
  /** MCP servers an ACP client gave with its session (not a flag). */
  mcpServers?: Readonly<Record<string, McpServerSettings>>;
  /** `--max-turns`. */
  maxTurns: number | undefined;
  /** `--trust-project-config`. */
  trustProjectConfig: boolean;
  /** Positional words (`@path` attaches a file). */
  messages: readonly string[];
}

/** Arguments of `panto sessions`. */
export interface SessionsCommandArgs extends SessionsArgs, StoreFlags {
  /** Discriminator. */
  command: "sessions";
}

/** The parsed command line. */
export type CliArgs = ChatArgs | SessionsCommandArgs;

/**
 * Parses the command line. `--help`, `--version` and `completion SHELL`
 * print and exit 0; a usage error prints the problem and exits 2.
 *
 * @param argv The arguments (without the program name).
 * @param values What `-m` and session ids complete to, for a completion
 *   request (see `completionValues`).
 * @returns The parsed arguments.
 */
export function parseArgs(argv: readonly string[], values?: CompletionValues): CliArgs {
  if (argv[0] === "acp") return acpArgs(argv.slice(1));
  if (values) completion = values;
  const parser = argv[0] === "completion"
    ? completionParser(argv.slice(2))
    : or(sessionsCommand, mainParser);
  // optique's `or` matches no branch on an empty command line; that is plain `panto`.
  // `runParser` from optique's core, not `run` from @optique/run: the same
  // parsing, help and completion without loading Node's process and fs
  // modules, which cost every start time and memory (docs/benchmarks.md).
  const exit = (code: number) => Deno.exit(code === 0 ? 0 : 2);
  const width = terminalWidth();
  const parsed = argv.length === 0 ? {} : runParser(parser, "panto", markBareResume(argv), {
    help: { option: true, onShow: () => exit(0) },
    version: { value: VERSION, option: true, onShow: () => exit(0) },
    completion: { command: true, onShow: () => exit(0) },
    colors: false,
    showChoices: true,
    examples: MAIN_EXAMPLES,
    footer: MAIN_ENVIRONMENT,
    ...(width === undefined ? {} : { maxWidth: width }),
    aboveError: "usage",
    stdout: (text) => console.log(text),
    // A flag's value may be a key pasted in the wrong place: errors mask key-shaped words.
    stderr: (text) => writeStderr(`${redactSecrets(text)}\n`),
    onError: () => exit(2),
  }) as Record<string, unknown>;
  const store: StoreFlags = {
    noSession: parsed.noSession === true,
    sessionDir: parsed.sessionDir as string | undefined,
    store: parsed.store as StoreFlags["store"],
    storeUrl: parsed.storeUrl as string | undefined,
  };
  if ("json" in parsed || "action" in parsed || "all" in parsed) {
    return {
      command: "sessions",
      action: (parsed.action as SessionsArgs["action"] | undefined) ?? "list",
      id: parsed.id as string | undefined,
      name: parsed.name as string | undefined,
      json: parsed.json === true,
      all: parsed.all === true,
      ...(parsed.stale === undefined ? {} : { staleMinutes: parsed.stale as number }),
      ...migrateTarget(parsed, store),
      ...store,
    };
  }
  return chatArgs(parsed, store);
}

/**
 * `migrate --to KIND [--to-url …]`. A jsonl source takes no `--store-url`,
 * so there (as in `migrate --to sqlite --store-url FILE`) it names the target.
 */
function migrateTarget(
  parsed: Record<string, unknown>,
  store: StoreFlags,
): Pick<SessionsArgs, "migrateTo" | "migrateToUrl"> {
  if (parsed.to === undefined) return {};
  const jsonlSource = (store.store ?? "jsonl") === "jsonl";
  const url = (parsed.toUrl ?? (jsonlSource ? store.storeUrl : undefined)) as string | undefined;
  if (jsonlSource && parsed.toUrl === undefined) store.storeUrl = undefined;
  return { migrateTo: parsed.to as StoreKind, ...(url === undefined ? {} : { migrateToUrl: url }) };
}

/**
 * The parser that answers `panto completion SHELL WORD…`: `sessions` is
 * offered as the first word only, and the prompt words are left out
 * (`completion` would otherwise be taken as the first word of a prompt).
 */
function completionParser(words: readonly string[]) {
  const chat = merge(object(promptFields), modelOptions, storeOptions);
  if (words.length < 2) return or(sessionsCommand, chat);
  return words[0] === "sessions" ? sessionsCommand : chat;
}

/** Help is wrapped to the terminal's width; piped, it is not wrapped. */
function terminalWidth(): number | undefined {
  if (!Deno.stdout.isTerminal()) return undefined;
  try {
    return Deno.consoleSize().columns;
  } catch {
    return undefined;
  }
}

function chatArgs(parsed: Record<string, unknown>, store: StoreFlags): ChatArgs {
  const resume = parsed.resume as string | undefined;
  const tools = parsed.tools as string | undefined;
  return {
    command: "chat",
    print: parsed.print === true,
    mode: chatMode(parsed),
    model: parsed.model as string | undefined,
    thinking: parsed.thinking as ReasoningLevel | undefined,
    api: parsed.api as ApiStyle | undefined,
    baseUrl: parsed.baseUrl as string | undefined,
    apiKeyEnv: parsed.apiKeyEnv as string | undefined,
    continueLast: parsed.continueLast === true,
    resume: resume === PICK ? "" : resume,
    ...(typeof parsed.fork === "string" ? { fork: parsed.fork } : {}),
    systemPrompt: parsed.systemPrompt as string | undefined,
    appendSystemPrompt: parsed.appendSystemPrompt as string | undefined,
    tools: tools === undefined ? undefined : tools.split(",").map((t) => t.trim()).filter(Boolean),
    noTools: parsed.noTools === true,
    extensions: (parsed.extensions as string[] | undefined) ?? [],
    noExtensions: parsed.noExtensions === true,
    mcpConfig: (parsed.mcpConfig as string[] | undefined) ?? [],
    maxTurns: parsed.maxTurns as number | undefined,
    trustProjectConfig: parsed.trustProjectConfig === true,
    messages: (parsed.messages as string[] | undefined) ?? [],
    ...store,
  };
}

/** `--mode`; RPC mode takes its prompts as commands on stdin only. */
function chatMode(parsed: Record<string, unknown>): ChatArgs["mode"] {
  const mode = (parsed.mode as ChatArgs["mode"] | undefined) ?? "text";
  if (mode !== "rpc") return mode;
  if (parsed.print === true || (parsed.messages as string[] | undefined)?.length) {
    throw new UsageError(
      "--mode rpc reads its prompts as commands on stdin: drop -p and the prompt words (see docs/rpc.md)",
    );
  }
  return mode;
}

/** `panto acp FLAGS`: the chat's model, tool and store flags; the editor sends prompts and picks sessions. */
function acpArgs(argv: readonly string[]): ChatArgs {
  const args = parseArgs(argv);
  if (
    args.command !== "chat" || args.print || args.mode !== "text" || args.messages.length > 0 ||
    args.continueLast || args.resume !== undefined || args.fork !== undefined
  ) {
    throw new UsageError(
      "panto acp takes model, tool and store flags only: the editor sends the prompts and picks the sessions (see docs/acp.md)",
    );
  }
  return { ...args, mode: "acp" };
}

/** `-r`/`--resume` followed by nothing or by another option means "open the picker". */
function markBareResume(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    out.push(arg);
    const next = argv[i + 1];
    if ((arg === "-r" || arg === "--resume") && (next === undefined || next.startsWith("-"))) {
      out.push(PICK);
    }
  }
  return out;
}
