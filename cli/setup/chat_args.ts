/**
 * The flags of the chat and print modes as data, and what they parse to.
 * `cli/setup/args.ts` builds optique's parser from these tables (help, errors,
 * completion, `panto sessions`); {@linkcode quickChatArgs} reads the plain
 * command lines a print run is started with, without loading optique (about
 * 8 MiB and 45 ms of module set-up), and leaves every other one to it.
 *
 * @module
 */
import type { OptionName } from "@optique/core/usage";
import type { NonEmptyString } from "@optique/core/valueparser";
import { API_STYLES, type ApiStyle, REASONING_LEVELS, type ReasoningLevel } from "@panto/lib";
import type { McpServerSettings } from "../config/panto_config.ts";
import { UsageError } from "../shared/errors.ts";
import { STORE_KINDS, type StoreFlags } from "./session_store.ts";

/** What an option's value may be. */
export type FlagValue =
  | { kind: "string" }
  | { kind: "integer"; min: number }
  | { kind: "choice"; choices: readonly string[] };

/** One flag (no value) or option (one value after it) of the command line. */
export interface FlagSpec {
  /** Its names, e.g. `["-m", "--model"]`. */
  names: readonly [OptionName, ...OptionName[]];
  /** The help line. */
  description: string;
  /** The option's value; absent for a flag. */
  value?: FlagValue;
  /** The value's name in the help, e.g. `MODEL`. */
  metavar?: NonEmptyString;
  /** The option may be given more than once (its values form a list). */
  multiple?: true;
  /** What shell completion offers for the value beyond the choices. */
  completes?: "models" | "sessions";
}

/** Flags keyed by the field they set. */
export type FlagTable = Readonly<Record<string, FlagSpec>>;

const text: FlagValue = { kind: "string" };

/** Where sessions are kept (also flags of `panto sessions`). */
export const STORE_FLAGS: FlagTable = {
  noSession: { names: ["--no-session"], description: "Keep nothing: do not save this session" },
  sessionDir: {
    names: ["--session-dir"],
    value: text,
    metavar: "DIR",
    description: "Directory of the jsonl session store (default $PANTO_HOME/sessions)",
  },
  store: {
    names: ["--store"],
    value: { kind: "choice", choices: STORE_KINDS },
    metavar: "KIND",
    description: "Session store (default jsonl)",
  },
  storeUrl: {
    names: ["--store-url"],
    value: text,
    metavar: "URL",
    description: "SQLite file or postgres:// URL of the session store",
  },
};

/** The model and its provider. */
export const MODEL_FLAGS: FlagTable = {
  model: {
    names: ["-m", "--model"],
    value: text,
    metavar: "MODEL",
    completes: "models",
    description:
      "Model: a config alias, provider/model or a catalog model's id; :LEVEL sets its thinking",
  },
  models: {
    names: ["--models"],
    value: text,
    metavar: "PATTERNS",
    description:
      "What ctrl+p cycles through: aliases, provider/model or globs (anthropic/*), comma-separated",
  },
  thinking: {
    names: ["--thinking"],
    value: { kind: "choice", choices: REASONING_LEVELS },
    metavar: "LEVEL",
    description: "Reasoning level (default: the model's in the config)",
  },
  api: {
    names: ["--api"],
    value: { kind: "choice", choices: API_STYLES },
    metavar: "API",
    description: "Wire protocol of an ad hoc provider",
  },
  baseUrl: {
    names: ["--base-url"],
    value: text,
    metavar: "URL",
    description: "Base URL of an ad hoc provider (Anthropic without /v1, OpenAI with it)",
  },
  apiKeyEnv: {
    names: ["--api-key-env"],
    value: text,
    metavar: "NAME",
    description: "Environment variable holding the API key",
  },
};

/** The prompt, the session it goes to, and what the agent may use. */
export const PROMPT_FLAGS: FlagTable = {
  print: {
    names: ["-p", "--print"],
    description: "Answer the prompts in turn, print the last answer, exit",
  },
  mode: {
    names: ["--mode"],
    value: { kind: "choice", choices: ["text", "json", "rpc"] },
    metavar: "MODE",
    description:
      "Output of print mode: text (the final answer) or json (every event as a line); rpc: serve JSON-lines commands on stdin (docs/rpc.md)",
  },
  continueLast: {
    names: ["-c", "--continue"],
    description: "Continue this directory's latest session (a new one when it has none)",
  },
  resume: {
    names: ["-r", "--resume"],
    value: text,
    // The id is optional (`markBareResume`); the brackets say so in the help.
    metavar: "[ID]",
    completes: "sessions",
    description: "Resume a session by id or prefix (a picker without an id)",
  },
  fork: {
    names: ["--fork"],
    value: text,
    metavar: "ID",
    completes: "sessions",
    description: "Start a new session from a copy of session ID's current branch",
  },
  systemPrompt: {
    names: ["--system-prompt"],
    value: text,
    metavar: "TEXT",
    description: "Replace the default system prompt",
  },
  appendSystemPrompt: {
    names: ["--append-system-prompt"],
    value: text,
    metavar: "TEXT",
    description: "Append to the system prompt",
  },
  tools: {
    names: ["--tools"],
    value: text,
    metavar: "NAMES",
    description: "Comma-separated built-in tools to offer (read,write,edit,bash,ls,grep,find)",
  },
  noTools: { names: ["--no-tools"], description: "Offer no built-in tools" },
  noContextFiles: {
    names: ["--no-context-files"],
    description: "Leave AGENTS.md and CLAUDE.md files out of the system prompt",
  },
  noSkills: {
    names: ["--no-skills"],
    description: "Load no skills (SKILL.md) and offer no /skill: commands",
  },
  noPromptTemplates: {
    names: ["--no-prompt-templates"],
    description: "Load no prompt templates (/name commands from prompts/*.md)",
  },
  extensions: {
    names: ["-e", "--extension"],
    value: text,
    metavar: "PATH",
    multiple: true,
    description: "Load an extension module (repeatable)",
  },
  noExtensions: {
    names: ["--no-extensions"],
    description: "Load no extensions from the panto directories",
  },
  mcpConfig: {
    names: ["--mcp-config"],
    value: text,
    metavar: "FILE",
    multiple: true,
    description: 'Start the MCP servers of a JSON file ({ "mcpServers": … }; repeatable)',
  },
  maxTurns: {
    names: ["--max-turns"],
    value: { kind: "integer", min: 1 },
    description: "Most model requests for one prompt (default 50)",
  },
  autoApprove: {
    names: ["--auto-approve"],
    description:
      "Run the tools of tools.requireApproval without asking (print mode refuses them otherwise)",
  },
  trustProjectConfig: {
    names: ["--trust-project-config"],
    description:
      "Trust this project's .panto/config.json as it is now (its providers, keys, headers, allowed paths, MCP servers); remembered until the file changes",
  },
};

/** The prompt words after the flags. */
export const MESSAGES_ARGUMENT = {
  metavar: "MESSAGE",
  description:
    "A prompt; several are sent in turn, each once the one before is answered; @path attaches a file to the first",
} as const;

/** The words that start another command than the chat (`panto sessions`, …). */
export const COMMAND_WORDS: readonly string[] = ["sessions", "models", "completion", "acp"];

/** Marks `-r/--resume` given without an id (open the picker). */
const PICK = "\u0000pick";

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
  /** `--models` split on commas: what ctrl+p cycles through. */
  models?: readonly string[];
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
  /** `--no-context-files`. */
  noContextFiles?: boolean;
  /** `--no-skills`. */
  noSkills?: boolean;
  /** `--no-prompt-templates`. */
  noPromptTemplates?: boolean;
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
  /** `--auto-approve`: no tool call needs approval (docs/approvals.md). */
  autoApprove?: boolean;
  /** Positional words (`@path` attaches a file). */
  messages: readonly string[];
}

const CHAT_FLAGS = new Map<string, { field: string; spec: FlagSpec }>(
  Object.entries({ ...PROMPT_FLAGS, ...MODEL_FLAGS, ...STORE_FLAGS }).flatMap(([field, spec]) =>
    spec.names.map((name) => [name, { field, spec }] as const)
  ),
);

/**
 * Reads a plain chat or print command line without optique: known flags
 * and options each given once, each option followed by a valid value, and
 * prompt words. Anything else (`--help`, a command such as `sessions`, an
 * unknown or repeated flag, `--name=value`, a value that starts with `-` or
 * is not one of its choices, an empty word) gives undefined: optique then
 * parses it and words the help or the error. Both read the same tables, and
 * a property test holds this reading to optique's.
 *
 * @example
 * ```ts
 * import { quickChatArgs } from "./chat_args.ts";
 * console.assert(quickChatArgs(["-p", "hi"])?.print === true);
 * console.assert(quickChatArgs(["--help"]) === undefined);
 * ```
 *
 * @param argv The arguments (without the program name).
 * @returns The parsed arguments, or undefined to leave them to optique.
 */
export function quickChatArgs(argv: readonly string[]): ChatArgs | undefined {
  const parsed: Record<string, unknown> = {};
  const messages: string[] = [];
  const words = markBareResume(argv);
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === "" || COMMAND_WORDS.includes(word)) return undefined;
    if (!word.startsWith("-")) {
      messages.push(word);
      continue;
    }
    const known = CHAT_FLAGS.get(word);
    if (known === undefined) return undefined;
    const { field, spec } = known;
    if (field in parsed && !spec.multiple) return undefined;
    if (spec.value === undefined) {
      parsed[field] = true;
      continue;
    }
    const value = quickValue(spec.value, words[++i]);
    if (value === undefined) return undefined;
    parsed[field] = spec.multiple
      ? [...(parsed[field] as unknown[] | undefined ?? []), value]
      : value;
  }
  parsed.messages = messages;
  return chatArgs(parsed, storeFlags(parsed));
}

/** An option's value as optique would read it, or undefined for anything less plain. */
function quickValue(value: FlagValue, word: string | undefined): string | number | undefined {
  if (word === undefined || word === "" || word.startsWith("-")) return undefined;
  switch (value.kind) {
    case "string":
      return word;
    case "choice":
      return value.choices.includes(word) ? word : undefined;
    case "integer": {
      const n = /^(0|[1-9]\d{0,14})$/.test(word) ? Number(word) : NaN;
      return n >= value.min ? n : undefined;
    }
  }
}

/**
 * The store flags of a parsed command line.
 *
 * @param parsed The fields the parser set.
 * @returns The store flags.
 */
export function storeFlags(parsed: Record<string, unknown>): StoreFlags {
  return {
    noSession: parsed.noSession === true,
    sessionDir: parsed.sessionDir as string | undefined,
    store: parsed.store as StoreFlags["store"],
    storeUrl: parsed.storeUrl as string | undefined,
  };
}

/** `a, b,c` → `["a", "b", "c"]`. */
function splitList(value: string): string[] {
  return value.split(",").map((item) => item.trim()).filter(Boolean);
}

/**
 * The chat's arguments from the fields the parser set.
 *
 * @param parsed The fields the parser set.
 * @param store The store flags among them.
 * @returns The chat's arguments.
 * @throws {UsageError} For `--mode rpc` with `-p` or prompt words.
 */
export function chatArgs(parsed: Record<string, unknown>, store: StoreFlags): ChatArgs {
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
    ...(typeof parsed.models === "string" ? { models: splitList(parsed.models) } : {}),
    continueLast: parsed.continueLast === true,
    resume: resume === PICK ? "" : resume,
    ...(typeof parsed.fork === "string" ? { fork: parsed.fork } : {}),
    systemPrompt: parsed.systemPrompt as string | undefined,
    appendSystemPrompt: parsed.appendSystemPrompt as string | undefined,
    tools: tools === undefined ? undefined : splitList(tools),
    noTools: parsed.noTools === true,
    noContextFiles: parsed.noContextFiles === true,
    noSkills: parsed.noSkills === true,
    noPromptTemplates: parsed.noPromptTemplates === true,
    extensions: (parsed.extensions as string[] | undefined) ?? [],
    noExtensions: parsed.noExtensions === true,
    mcpConfig: (parsed.mcpConfig as string[] | undefined) ?? [],
    maxTurns: parsed.maxTurns as number | undefined,
    trustProjectConfig: parsed.trustProjectConfig === true,
    autoApprove: parsed.autoApprove === true,
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

/**
 * `-r`/`--resume` followed by nothing or by another option means "open the
 * picker": a marker value takes the id's place.
 *
 * @param argv The arguments.
 * @returns The arguments with the marker after a bare `-r`.
 */
export function markBareResume(argv: readonly string[]): string[] {
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
