/**
 * What `/reload` reports: a snapshot of what the chat runs with, taken
 * before and after, and the one line that says what differs.
 *
 * @module
 */
import type { PantoConfig } from "../config/panto_config.ts";
import type { ReloadableSetup } from "./reload_plan.ts";

/** What the chat runs with, as `/reload` compares it. */
export interface ReloadSnapshot {
  /** Each reported config setting, as JSON (compared, never shown: it may hold headers). */
  config: Readonly<Record<string, string>>;
  /** The theme's name. */
  theme: string;
  /** The skills' names. */
  skills: readonly string[];
  /** The prompt templates' names. */
  templates: readonly string[];
  /** Each context file (AGENTS.md, CLAUDE.md) the prompt includes, as shown, with its text. */
  contextFiles: Readonly<Record<string, string>>;
  /** The whole system prompt (SYSTEM.md, APPEND_SYSTEM.md and the skills list included). */
  systemPrompt: string;
  /** The names of the loaded extensions (re-imported by every reload). */
  extensions: readonly string[];
}

/**
 * What the chat runs with, as `/reload` compares it.
 *
 * @param setup What the controller built from the files.
 * @param theme The view's theme name.
 * @param extensions The loaded extensions' names.
 * @returns The snapshot.
 *
 * @example
 * ```ts ignore
 * const before = setupSnapshot(setup, "dark", []);
 * ```
 */
export function setupSnapshot(
  setup: ReloadableSetup,
  theme: string,
  extensions: readonly string[],
): ReloadSnapshot {
  return {
    config: configFingerprint(setup.config),
    theme,
    skills: setup.resources.skills.map((skill) => skill.name),
    templates: setup.resources.templates.map((template) => template.name),
    contextFiles: setup.contextTexts,
    systemPrompt: setup.systemPrompt,
    extensions,
  };
}

/** Config fields that only say where a value came from, or are reported apart. */
const NOT_COMPARED = new Set(["notices", "files", "theme"]);

/**
 * The config's settings, each as JSON, for {@linkcode ReloadSnapshot.config}:
 * the `…Source(s)` bookkeeping and the theme (reported by name) left out.
 *
 * @param config The loaded configuration.
 * @returns Setting name → JSON text.
 *
 * @example
 * ```ts
 * import { configFingerprint } from "./reload_summary.ts";
 * const print = configFingerprint({ defaultModel: "fast", defaultModelSource: "config.json" } as never);
 * console.assert(print.defaultModel === '"fast"' && !("defaultModelSource" in print));
 * ```
 */
export function configFingerprint(config: PantoConfig): Record<string, string> {
  return Object.fromEntries(
    Object.entries(config)
      .filter(([key, value]) => value !== undefined && !NOT_COMPARED.has(key))
      .filter(([key]) => !/Sources?$/.test(key))
      .map(([key, value]) => [key, JSON.stringify(value)]),
  );
}

/**
 * One line saying what a reload changed, as pi users expect to read it:
 * `Reloaded: theme dark → light; 2 skills added (a, b), 1 removed (c);
 * AGENTS.md changed; extension x reloaded; config: defaultModel, keybindings`,
 * or `Nothing changed`.
 *
 * @param before The snapshot taken before the reload.
 * @param after The snapshot taken after it.
 * @returns The notice.
 *
 * @example
 * ```ts
 * import { summarizeReload, type ReloadSnapshot } from "./reload_summary.ts";
 * const before: ReloadSnapshot = { config: {}, theme: "dark", skills: ["a"], templates: [], contextFiles: {}, systemPrompt: "p", extensions: [] };
 * console.assert(summarizeReload(before, before) === "Nothing changed");
 * console.assert(summarizeReload(before, { ...before, theme: "light" }) === "Reloaded: theme dark → light");
 * ```
 */
export function summarizeReload(before: ReloadSnapshot, after: ReloadSnapshot): string {
  const parts = [
    before.theme === after.theme ? undefined : `theme ${before.theme} → ${after.theme}`,
    namesChanged("skill", before.skills, after.skills),
    namesChanged("prompt template", before.templates, after.templates),
    ...filesChanged(before.contextFiles, after.contextFiles),
    ...extensionsChanged(before.extensions, after.extensions),
    settingsChanged(before.config, after.config),
  ].filter((part) => part !== undefined);
  // SYSTEM.md, APPEND_SYSTEM.md: the prompt changed and nothing listed explains it.
  const explained = parts.some((part) => /skill|\.md /.test(part));
  if (before.systemPrompt !== after.systemPrompt && !explained) parts.push("system prompt changed");
  return parts.length === 0 ? "Nothing changed" : `Reloaded: ${parts.join("; ")}`;
}

/** `2 skills added (a, b), 1 removed (c)`. */
function namesChanged(
  kind: string,
  before: readonly string[],
  after: readonly string[],
): string | undefined {
  const added = after.filter((name) => !before.includes(name));
  const removed = before.filter((name) => !after.includes(name));
  const counted = (names: string[], what: string) =>
    names.length ? `${names.length} ${what} (${names.join(", ")})` : undefined;
  const plural = (n: number) => n === 1 ? kind : `${kind}s`;
  const phrases = [
    counted(added, `${plural(added.length)} added`),
    counted(removed, added.length ? "removed" : `${plural(removed.length)} removed`),
  ].filter((phrase) => phrase !== undefined);
  return phrases.length ? phrases.join(", ") : undefined;
}

/** `AGENTS.md changed`, `CLAUDE.md added`, `~/.panto/AGENTS.md removed`. */
function filesChanged(
  before: Readonly<Record<string, string>>,
  after: Readonly<Record<string, string>>,
): string[] {
  const paths = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  return paths.flatMap((path) => {
    if (!(path in before)) return [`${path} added`];
    if (!(path in after)) return [`${path} removed`];
    return before[path] === after[path] ? [] : [`${path} changed`];
  });
}

/** `extension x reloaded`, `extensions x, y reloaded`, `extension z removed`. */
function extensionsChanged(before: readonly string[], after: readonly string[]): string[] {
  const listed = (names: string[], what: string) =>
    names.length
      ? [`${names.length === 1 ? "extension" : "extensions"} ${names.join(", ")} ${what}`]
      : [];
  return [
    ...listed(after.filter((name) => before.includes(name)), "reloaded"),
    ...listed(after.filter((name) => !before.includes(name)), "added"),
    ...listed(before.filter((name) => !after.includes(name)), "removed"),
  ];
}

/** `config: defaultModel, keybindings`. */
function settingsChanged(
  before: Readonly<Record<string, string>>,
  after: Readonly<Record<string, string>>,
): string | undefined {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
  const changed = keys.filter((key) => before[key] !== after[key]);
  return changed.length ? `config: ${changed.join(", ")}` : undefined;
}

/**
 * Settings a reload reads but cannot apply: the MCP servers are started once,
 * and the launcher grants paths and variables at start only.
 */
const RESTART_SETTINGS: readonly [string, (config: PantoConfig) => unknown][] = [
  ["mcpServers", (config) => config.mcpServers],
  ["tools.allowedPaths", (config) => config.tools.allowedPaths],
  ["providers' apiKeyEnv", (config) => Object.values(config.providers).map((p) => p.apiKeyEnv)],
];

/**
 * One notice per changed setting that takes effect only at the next start.
 *
 * @param before The config in force before the reload.
 * @param after The config read by it.
 * @returns The notices (none when no such setting changed).
 *
 * @example
 * ```ts
 * import { restartNotices } from "./reload_summary.ts";
 * const config = { mcpServers: {}, tools: { allowedPaths: [] }, providers: {} } as never;
 * console.assert(restartNotices(config, config).length === 0);
 * ```
 */
export function restartNotices(before: PantoConfig, after: PantoConfig): string[] {
  return RESTART_SETTINGS
    .filter(([, read]) => JSON.stringify(read(before)) !== JSON.stringify(read(after)))
    .map(([name]) =>
      `${name} changed: restart panto for it to take effect (MCP servers, tool approvals, and ` +
      "the paths and variables the installed command is granted are set up at start)"
    );
}
