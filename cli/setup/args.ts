import { merge, object, or } from "@optique/core/constructs";
import { runParser } from "@optique/core/facade";
import { message, text } from "@optique/core/message";
import { multiple, optional } from "@optique/core/modifiers";
import { argument, command, constant, flag, option } from "@optique/core/primitives";
import { choice, integer, string, type ValueParser } from "@optique/core/valueparser";
import {
  type ChatArgs,
  chatArgs,
  type FlagSpec,
  type FlagTable,
  type FlagValue,
  markBareResume,
  MESSAGES_ARGUMENT,
  MODEL_FLAGS,
  PROMPT_FLAGS,
  STORE_FLAGS,
  storeFlags,
} from "./chat_args.ts";
import { SESSIONS_ACTIONS, type SessionsArgs } from "../commands/sessions.ts";
import { EXPORT_FORMATS, type ExportFormat } from "../export/export_formats.ts";
import type { ModelsArgs } from "../commands/models.ts";
import { type CompletionValues, suggesting } from "./completion_values.ts";
import { MAIN_ENVIRONMENT, MAIN_EXAMPLES, SESSIONS_ACTIONS_HELP } from "./help_text.ts";
import { redactSecrets } from "@panto/lib";
import { UsageError } from "../shared/errors.ts";
import { STORE_KINDS, type StoreFlags, type StoreKind } from "./session_store.ts";
import { writeStderr } from "../shared/stdio.ts";
import { VERSION } from "../version.ts";

export type { ChatArgs } from "./chat_args.ts";

/** What `-m`, `-r` and session ids complete to (set for a completion request). */
let completion: CompletionValues = { models: [], sessions: [] };
const sessionId = () => suggesting(string({ metavar: "ID" }), () => completion.sessions);

/** optique's value parser for a table's option. */
function valueParser(value: FlagValue, spec: FlagSpec): ValueParser<"sync", string | number> {
  const metavar = spec.metavar === undefined ? {} : { metavar: spec.metavar };
  switch (value.kind) {
    case "integer":
      return integer({ min: value.min, ...metavar });
    case "choice":
      return choice(value.choices, metavar);
    case "string": {
      const parser = string(metavar);
      const values = spec.completes;
      return values === undefined ? parser : suggesting(parser, () => completion[values]);
    }
  }
}

/** optique's parser for one flag or option of a table. */
function optiqueFlag(spec: FlagSpec) {
  const description = { description: [text(spec.description)] };
  if (spec.value === undefined) return optional(flag(...spec.names, description));
  const parsed = option(...spec.names, valueParser(spec.value, spec), description);
  return spec.multiple ? multiple(parsed) : optional(parsed);
}

/** optique's parsers for a table, keyed like it. */
function optiqueFields(table: FlagTable) {
  return Object.fromEntries(
    Object.entries(table).map(([field, spec]) => [field, optiqueFlag(spec)]),
  );
}

const storeOptions = object(optiqueFields(STORE_FLAGS));
const modelOptions = object(optiqueFields(MODEL_FLAGS));
const promptFields = optiqueFields(PROMPT_FLAGS);

const promptOptions = object({
  ...promptFields,
  messages: multiple(argument(string({ metavar: MESSAGES_ARGUMENT.metavar }), {
    description: [text(MESSAGES_ARGUMENT.description)],
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
      id: optional(argument(sessionId(), {
        description: message`A session id or unique prefix (import: the file)`,
      })),
      name: optional(argument(string({ metavar: "NAME" }), {
        description: message`rename: the new name; export: the file to write`,
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
      wait: optional(option("--wait", integer({ min: 0, metavar: "SECONDS" }), {
        description: message`migrate: how long to wait for a running turn to end (default 30)`,
      })),
      format: optional(option("--format", choice(EXPORT_FORMATS, { metavar: "FORMAT" }), {
        description:
          message`export: html, md or jsonl (default: the file's extension; md to stdout)`,
      })),
      force: optional(flag("--force", {
        description: message`export: replace the file when it exists`,
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

const modelsCommand = command(
  "models",
  object({
    command: constant("models" as const),
    filter: optional(argument(string({ metavar: "FILTER" }), {
      description: message`Words every model listed contains (in provider/model or its name)`,
    })),
    all: optional(flag("-a", "--all", {
      description: message`Every provider's models (default: those whose key is set)`,
    })),
    json: optional(flag("--json", { description: message`List as JSON` })),
  }),
  {
    description:
      message`List the models panto knows: context window, output limit, input, thinking levels, prices, whether the key is set (also --list-models)`,
  },
);

/** The chat's flags `panto acp` refuses (`acpArgs` checks them): the editor sends those. */
const ACP_REFUSED_FLAGS = ["print", "mode", "continueLast", "resume", "fork"];

/**
 * `panto acp` for help and completion. Its command lines are read by
 * `acpArgs`, which says why a chat-only flag is refused where optique would
 * only call it unexpected.
 */
const acpCommand = command(
  "acp",
  merge(
    object(optiqueFields(
      Object.fromEntries(
        Object.entries(PROMPT_FLAGS).filter(([field]) => !ACP_REFUSED_FLAGS.includes(field)),
      ),
    )),
    modelOptions,
    storeOptions,
  ),
  {
    description: message`Serve an editor over the Agent Client Protocol (docs/acp.md)`,
    footer: message`The editor sends the prompts and picks the sessions.`,
  },
);

/** optique's help flags; among `panto acp`'s words they ask for its help, not for ACP. */
const HELP_FLAGS = ["-h", "--help"] as const;

const mainParser = merge(promptOptions, modelOptions, storeOptions);

/** Arguments of `panto sessions`. */
export interface SessionsCommandArgs extends SessionsArgs, StoreFlags {
  /** Discriminator. */
  command: "sessions";
}

/** Arguments of `panto models`. */
export interface ModelsCommandArgs extends ModelsArgs {
  /** Discriminator. */
  command: "models";
}

/** The parsed command line. */
export type CliArgs = ChatArgs | SessionsCommandArgs | ModelsCommandArgs;

/**
 * Parses the command line. `-h`/`--help`, `-v`/`-V`/`--version` and
 * `completion SHELL` print and exit 0; a usage error prints the problem and
 * exits 2.
 *
 * @param argv The arguments (without the program name).
 * @param values What `-m` and session ids complete to, for a completion
 *   request (see `completionValues`).
 * @returns The parsed arguments.
 */
export function parseArgs(argv: readonly string[], values?: CompletionValues): CliArgs {
  if (argv[0] === "acp" && !argv.some((word) => HELP_FLAGS.some((flag) => flag === word))) {
    return acpArgs(argv.slice(1));
  }
  if (values) completion = values;
  const parser = argv[0] === "completion"
    ? completionParser(argv.slice(2))
    : or(sessionsCommand, modelsCommand, acpCommand, mainParser);
  // optique's `or` matches no branch on an empty command line; that is plain `panto`.
  // `runParser` from optique's core, not `run` from @optique/run: the same
  // parsing, help and completion without loading Node's process and fs
  // modules, which cost every start time and memory (docs/benchmarks.md).
  const exit = (code: number) => Deno.exit(code === 0 ? 0 : 2);
  const width = terminalWidth();
  const parsed = argv.length === 0 ? {} : runParser(parser, "panto", markBareResume(argv), {
    help: { option: { names: HELP_FLAGS }, onShow: () => exit(0) },
    version: {
      value: VERSION,
      option: { names: ["-v", "-V", "--version"] },
      onShow: () => exit(0),
    },
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
  if (parsed.command === "models") {
    return {
      command: "models",
      filter: parsed.filter as string | undefined,
      all: parsed.all === true,
      json: parsed.json === true,
    };
  }
  const store = storeFlags(parsed);
  if ("json" in parsed || "action" in parsed || "all" in parsed) {
    return {
      command: "sessions",
      action: (parsed.action as SessionsArgs["action"] | undefined) ?? "list",
      id: parsed.id as string | undefined,
      name: parsed.name as string | undefined,
      json: parsed.json === true,
      all: parsed.all === true,
      ...(parsed.stale === undefined ? {} : { staleMinutes: parsed.stale as number }),
      ...(parsed.format === undefined ? {} : { exportFormat: parsed.format as ExportFormat }),
      ...(parsed.force === true ? { force: true } : {}),
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
): Pick<SessionsArgs, "migrateTo" | "migrateToUrl" | "migrateWaitSeconds"> {
  if (parsed.to === undefined) return {};
  const jsonlSource = (store.store ?? "jsonl") === "jsonl";
  const url = (parsed.toUrl ?? (jsonlSource ? store.storeUrl : undefined)) as string | undefined;
  if (jsonlSource && parsed.toUrl === undefined) store.storeUrl = undefined;
  return {
    migrateTo: parsed.to as StoreKind,
    ...(url === undefined ? {} : { migrateToUrl: url }),
    ...(parsed.wait === undefined ? {} : { migrateWaitSeconds: parsed.wait as number }),
  };
}

/**
 * The parser that answers `panto completion SHELL WORD…`: `sessions` and
 * `acp` are offered as the first word only, and the prompt words are left
 * out (`completion` would otherwise be taken as the first word of a prompt).
 */
function completionParser(words: readonly string[]) {
  const chat = merge(object(promptFields), modelOptions, storeOptions);
  if (words.length < 2) return or(sessionsCommand, modelsCommand, acpCommand, chat);
  if (words[0] === "sessions") return sessionsCommand;
  if (words[0] === "models") return modelsCommand;
  return words[0] === "acp" ? acpCommand : chat;
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
