/**
 * What shell completion suggests that only the config and the store know:
 * model aliases for `-m`, session ids for `-r` and `panto sessions ACTION`.
 * Looked up only when the shell asks (`panto completion SHELL WORD…`).
 *
 * @module
 */
import { text } from "@optique/core/message";
import type { ValueParser } from "@optique/core/valueparser";
import { loadConfig, resolvePantoHome } from "../config/load_config.ts";
import { modelChoices } from "../config/model_registry.ts";
import { readEnv } from "../shared/env.ts";
import { openStore, STORE_KINDS, type StoreFlags, type StoreKind } from "./session_store.ts";
import { sessionTitle } from "../shared/session_title.ts";

/** One suggested value and a few words about it. */
export interface CompletionValue {
  /** The value. */
  text: string;
  /** What it is (shells that show descriptions show it). */
  description: string;
}

/** Model aliases and session ids to suggest. */
export interface CompletionValues {
  /** Aliases of the configured models. */
  models: readonly CompletionValue[];
  /** Ids of saved sessions, newest first. */
  sessions: readonly CompletionValue[];
}

/** Most session ids offered. */
const SESSION_LIMIT = 50;

/**
 * The values for a completion request, or nothing for any other command
 * line. Never fails: a config or store that cannot be read suggests nothing.
 *
 * @param argv The command line (`completion SHELL WORD…` is a request).
 * @param cwd The working directory.
 * @returns The values, or undefined when `argv` is not a completion request.
 */
export async function completionValues(
  argv: readonly string[],
  cwd: string = Deno.cwd(),
): Promise<CompletionValues | undefined> {
  if (argv[0] !== "completion" || argv.length < 3) return undefined;
  const pantoHome = resolvePantoHome(readEnv, cwd);
  const [models, sessions] = await Promise.all([
    modelAliases(pantoHome, cwd).catch(() => []),
    sessionIds(storeFlags(argv.slice(2)), pantoHome).catch(() => []),
  ]);
  return { models, sessions };
}

async function modelAliases(pantoHome: string, cwd: string): Promise<CompletionValue[]> {
  const config = await loadConfig({ pantoHome, cwd, env: readEnv, untrustedProject: "ignore" });
  return modelChoices(config).map((c) => ({ text: c.alias, description: c.provider.model }));
}

async function sessionIds(flags: StoreFlags, pantoHome: string): Promise<CompletionValue[]> {
  const store = await openStore(flags, pantoHome);
  try {
    const sessions = await store.list({ limit: SESSION_LIMIT });
    return sessions.map((s) => ({
      text: s.id,
      description: sessionTitle(s).replace(/\s+/g, " ").slice(0, 60),
    }));
  } finally {
    await store.close();
  }
}

/** The store flags among the words typed so far (the ids come from that store). */
function storeFlags(words: readonly string[]): StoreFlags {
  const after = (flag: string) => {
    const at = words.indexOf(flag);
    return at < 0 ? undefined : words[at + 1];
  };
  const kind = after("--store");
  return {
    store: STORE_KINDS.includes(kind as StoreKind) ? kind as StoreKind : undefined,
    storeUrl: after("--store-url"),
    sessionDir: after("--session-dir"),
    noSession: false,
  };
}

/**
 * `parser` that also suggests `values()` starting with the typed prefix
 * (read when the shell asks, after {@linkcode completionValues} ran).
 *
 * @param parser A string value parser.
 * @param values The values to offer.
 * @returns The parser with suggestions.
 */
export function suggesting(
  parser: ValueParser<"sync", string>,
  values: () => readonly CompletionValue[],
): ValueParser<"sync", string> {
  return {
    ...parser,
    *suggest(prefix: string) {
      for (const value of values()) {
        if (!value.text.startsWith(prefix)) continue;
        yield { kind: "literal", text: value.text, description: [text(value.description)] };
      }
    },
  };
}
