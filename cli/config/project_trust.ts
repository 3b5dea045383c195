import { join } from "node:path";
import { DEFAULT_BASE_URL, DEFAULT_KEY_ENV } from "./ad_hoc_provider.ts";
import { UsageError } from "../shared/errors.ts";
import type { McpServerSettings, PantoConfig, ProviderSettings } from "./panto_config.ts";
import { FileRefusedError, readRegularTextFile } from "./read_regular_file.ts";
import { redactSecrets } from "@panto/lib";

/**
 * What to do with a project config whose security-relevant settings the
 * user has not trusted: refuse to start, run without those settings, or
 * trust the file now (and remember it).
 */
export type UntrustedProjectPolicy = "refuse" | "ignore" | "trust";

/** One security-relevant change a project config makes. */
export interface RiskySetting {
  /** The setting, as a JSON path (`providers.anthropic.baseUrl`). */
  setting: string;
  /** Its value before the project config (never a key). */
  from: string;
  /** Its value with the project config (never a key). */
  to: string;
}

/** The project config, ready for a trust decision. */
export interface ProjectLayer {
  /** The project directory (trust is remembered per directory and file content). */
  projectDir: string;
  /** The file as shown to the user. */
  shown: string;
  /** The file's text (hashed, never stored). */
  text: string;
  /** The configuration without the project file. */
  before: PantoConfig;
  /** The configuration with it. */
  after: PantoConfig;
}

/** The file, under panto's home, that remembers trusted project configs. */
export const TRUST_FILE = "trusted_projects.json";

/**
 * The changes of a project config that could send a key or the
 * conversation elsewhere, or widen what the tools may touch, or take the
 * user's keys away: a provider's `baseUrl`, key variable or headers; a new
 * provider with a key variable or headers; added `tools.allowedPaths`; a
 * new or changed MCP server; changed key bindings (a cloned repository
 * could otherwise rebind enter, esc or ctrl+c); a changed theme (one the
 * project ships could hide text by drawing it in its background's colour).
 *
 * @param before The configuration without the project file.
 * @param after The configuration with it.
 * @returns The risky changes, in config order.
 *
 * @example
 * ```ts
 * import { riskySettings } from "./project_trust.ts";
 * const base = { providers: {}, models: {}, compaction: {}, retry: {}, keybindings: {}, keybindingSources: {}, tools: { allowedPaths: [], bashTimeoutSeconds: 120 }, parallelTools: false, files: [], notices: [] };
 * const wider = { ...base, tools: { allowedPaths: ["/etc"], bashTimeoutSeconds: 120 } };
 * console.assert(riskySettings(base, wider)[0]?.to === "/etc");
 * ```
 */
export function riskySettings(before: PantoConfig, after: PantoConfig): RiskySetting[] {
  const risky = Object.entries(after.providers).flatMap(([name, next]) =>
    providerRisks(name, previous(before, name), next)
  );
  for (const path of addedPaths(before, after)) {
    risky.push({ setting: "tools.allowedPaths", from: "(not allowed)", to: printable(path) });
  }
  // A server is a program panto would run, or a URL it would call: code execution.
  for (const name of changedMcpServers(before, after)) {
    const prev = before.mcpServers?.[name];
    risky.push({
      setting: `mcpServers.${name}`,
      from: prev ? mcpServerShown(prev) : "(none)",
      to: mcpServerShown(after.mcpServers![name]!),
    });
  }
  if (projectTheme(before, after)) {
    risky.push({ setting: "theme", from: before.theme ?? "dark", to: printable(after.theme!) });
  }
  for (const [action, keys] of Object.entries(after.keybindings)) {
    const prev = before.keybindings[action];
    if (prev !== undefined && prev.join() === keys.join()) continue;
    risky.push({
      setting: `keybindings.${printable(action)}`,
      from: prev ? keysShown(prev) : "(default)",
      to: keysShown(keys),
    });
  }
  return risky;
}

/** Whether the project file changes the theme. */
function projectTheme(before: PantoConfig, after: PantoConfig): boolean {
  return after.theme !== undefined && after.theme !== before.theme;
}

function restoreTheme(safe: PantoConfig, before: PantoConfig): void {
  delete safe.theme;
  delete safe.themeSource;
  if (before.theme !== undefined) safe.theme = before.theme;
  if (before.themeSource !== undefined) safe.themeSource = before.themeSource;
}

function keysShown(keys: readonly string[]): string {
  return keys.length === 0 ? "(unbound)" : keys.map(printable).join(", ");
}

/**
 * The configuration with the project file's risky changes undone: an
 * overridden provider keeps its earlier settings, a new provider loses its
 * key variable and headers, added allowed paths are dropped, MCP servers
 * and key bindings are those of the earlier files. A notice saying so is
 * added.
 *
 * @param layer The project layer.
 * @param risky Its risky changes (non-empty).
 * @returns The safe configuration.
 */
export function withoutRiskySettings(layer: ProjectLayer, risky: RiskySetting[]): PantoConfig {
  const { before, after } = layer;
  const safe = structuredClone(after);
  for (const [name, next] of Object.entries(after.providers)) {
    const prev = previous(before, name);
    if (providerRisks(name, prev, next).length === 0) continue;
    if (prev) safe.providers[name] = structuredClone(prev);
    else {
      delete safe.providers[name]!.apiKeyEnv;
      delete safe.providers[name]!.headers;
    }
  }
  safe.tools.allowedPaths = after.tools.allowedPaths.filter((path) =>
    before.tools.allowedPaths.includes(path)
  );
  if (before.mcpServers) safe.mcpServers = structuredClone(before.mcpServers);
  else delete safe.mcpServers;
  safe.keybindings = structuredClone(before.keybindings);
  safe.keybindingSources = structuredClone(before.keybindingSources);
  if (projectTheme(before, after)) restoreTheme(safe, before);
  safe.notices.push(
    `Ignoring these settings of ${layer.shown}, which is not trusted:\n${
      formatRiskySettings(risky)
    }\nTo use them, trust the file: run panto there with --trust-project-config`,
  );
  return safe;
}

/**
 * The risky changes as indented lines (`  providers.anthropic.baseUrl: a → b`).
 *
 * @param risky The changes.
 * @returns One line per change.
 *
 * @example
 * ```ts
 * import { formatRiskySettings } from "./project_trust.ts";
 * const text = formatRiskySettings([{ setting: "tools.allowedPaths", from: "(not allowed)", to: "/etc" }]);
 * console.assert(text === "  tools.allowedPaths: (not allowed) → /etc");
 * ```
 */
export function formatRiskySettings(risky: readonly RiskySetting[]): string {
  return risky.map((r) => `  ${r.setting}: ${r.from} → ${r.to}`).join("\n");
}

/**
 * Applies the policy to a project config with risky changes: trusted
 * files (same directory, same content) are used as they are.
 *
 * @param layer The project layer.
 * @param pantoHome panto's home, where trust is remembered.
 * @param policy What to do when the file is not trusted.
 * @returns The configuration to use.
 * @throws {UsageError} With `refuse` for an untrusted file, listing the risky settings and how to trust them.
 */
export async function settleProjectTrust(
  layer: ProjectLayer,
  pantoHome: string,
  policy: UntrustedProjectPolicy,
): Promise<PantoConfig> {
  const risky = riskySettings(layer.before, layer.after);
  if (risky.length === 0 || await isProjectTrusted(pantoHome, layer)) return layer.after;
  if (policy === "trust") {
    await trustProject(pantoHome, layer);
    return layer.after;
  }
  if (policy === "ignore") return withoutRiskySettings(layer, risky);
  throw new UsageError(
    `${layer.shown} changes security-relevant settings, which panto uses only once you trust the file:\n${
      formatRiskySettings(risky)
    }\nIf you expect these, trust the file: run panto in ${
      printable(layer.projectDir)
    } with --trust-project-config once, or start the interactive chat there and answer y (panto asks again when the file changes)`,
  );
}

/**
 * Whether the user trusted this project's config file with this content.
 *
 * @param pantoHome panto's home.
 * @param layer The project layer.
 * @returns `true` when the remembered hash for the directory matches the text.
 */
export function isProjectTrusted(pantoHome: string, layer: ProjectLayer): Promise<boolean> {
  return isTrusted(pantoHome, "projects", layer.projectDir, layer.text);
}

/**
 * Remembers that the user trusts this project's config file as it is now,
 * in `$PANTO_HOME/trusted_projects.json` (mode 0600): directory → SHA-256 of
 * the content. A changed file is not trusted.
 *
 * @param pantoHome panto's home.
 * @param layer The project layer.
 */
export function trustProject(pantoHome: string, layer: ProjectLayer): Promise<void> {
  return rememberTrust(pantoHome, "projects", layer.projectDir, layer.text);
}

/** What a trust record is about: a project's config file, its extension modules, or its skills. */
export type TrustSection = "projects" | "extensions" | "skills";

/**
 * Whether the user trusted `content` (a config file's text, or a digest of
 * extension modules) for this directory.
 *
 * @param pantoHome panto's home.
 * @param section What the content is.
 * @param projectDir The project directory.
 * @param content The text whose hash must match the remembered one.
 * @returns `true` when it matches.
 */
export async function isTrusted(
  pantoHome: string,
  section: TrustSection,
  projectDir: string,
  content: string,
): Promise<boolean> {
  const trusted = await readTrustFile(pantoHome);
  return trusted[section][projectDir] === await contentHash(content);
}

/**
 * Remembers the hash of `content` for this directory in
 * `$PANTO_HOME/trusted_projects.json` (mode 0600, replaced atomically).
 *
 * @param pantoHome panto's home.
 * @param section What the content is.
 * @param projectDir The project directory.
 * @param content The trusted text.
 */
export async function rememberTrust(
  pantoHome: string,
  section: TrustSection,
  projectDir: string,
  content: string,
): Promise<void> {
  const trusted = await readTrustFile(pantoHome);
  trusted[section][projectDir] = await contentHash(content);
  await Deno.mkdir(pantoHome, { recursive: true, mode: 0o700 });
  const path = join(pantoHome, TRUST_FILE);
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(temporary, JSON.stringify(trusted, null, 2) + "\n", { mode: 0o600 });
  await Deno.chmod(temporary, 0o600);
  await Deno.rename(temporary, path);
}

type TrustRecords = Record<TrustSection, Record<string, string>>;

async function readTrustFile(pantoHome: string): Promise<TrustRecords> {
  const path = join(pantoHome, TRUST_FILE);
  let text: string | undefined;
  try {
    text = await readRegularTextFile(path);
  } catch (error) {
    if (!(error instanceof FileRefusedError)) throw error;
    throw new UsageError(
      `${path} ${error.message}: delete it (panto writes it anew when you next trust a project)`,
    );
  }
  const records: TrustRecords = { projects: {}, extensions: {}, skills: {} };
  if (text === undefined) return records;
  try {
    const parsed = JSON.parse(text);
    for (const section of ["projects", "extensions", "skills"] as const) {
      const entries = parsed?.[section];
      if (typeof entries === "object" && entries !== null) records[section] = entries;
    }
  } catch {
    // A damaged file trusts nothing; trusting again rewrites it.
  }
  return records;
}

async function contentHash(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return `sha256:${
    Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("")
  }`;
}

function previous(config: PantoConfig, name: string): ProviderSettings | undefined {
  return Object.hasOwn(config.providers, name) ? config.providers[name] : undefined;
}

function providerRisks(
  name: string,
  prev: ProviderSettings | undefined,
  next: ProviderSettings,
): RiskySetting[] {
  const field = (key: string) => `providers.${name}.${key}`;
  const risks: RiskySetting[] = [];
  if (!prev) {
    if (next.apiKeyEnv && !isVendorKey(next)) {
      risks.push({
        setting: field("apiKeyEnv"),
        from: "(new provider)",
        to: `${next.apiKeyEnv}, sent to ${shownUrl(next.baseUrl)}`,
      });
    }
    if (headerNames(next)) {
      risks.push({
        setting: field("headers"),
        from: "(new provider)",
        to: `${headerNames(next)}, sent to ${shownUrl(next.baseUrl)} (values not shown)`,
      });
    }
    return risks;
  }
  if (prev.baseUrl !== next.baseUrl) {
    risks.push({
      setting: field("baseUrl"),
      from: shownUrl(prev.baseUrl),
      to: shownUrl(next.baseUrl),
    });
  }
  if (next.apiKeyEnv && prev.apiKeyEnv !== next.apiKeyEnv) {
    risks.push({
      setting: field("apiKeyEnv"),
      from: prev.apiKeyEnv ?? "(none)",
      to: next.apiKeyEnv,
    });
  }
  if (addsHeaders(prev, next)) {
    risks.push({
      setting: field("headers"),
      from: headerNames(prev) || "(none)",
      to: `${headerNames(next)} (values not shown)`,
    });
  }
  return risks;
}

/** The vendor's own key variable sent to the vendor's own API goes nowhere new. */
function isVendorKey(settings: ProviderSettings): boolean {
  return settings.baseUrl === DEFAULT_BASE_URL[settings.api] &&
    settings.apiKeyEnv === DEFAULT_KEY_ENV[settings.api];
}

function addsHeaders(prev: ProviderSettings, next: ProviderSettings): boolean {
  return Object.entries(next.headers ?? {}).some(([name, value]) => prev.headers?.[name] !== value);
}

function headerNames(settings: ProviderSettings): string {
  return Object.keys(settings.headers ?? {}).join(", ");
}

function changedMcpServers(before: PantoConfig, after: PantoConfig): string[] {
  const withoutSource = ({ source: _, ...entry }: McpServerSettings) => JSON.stringify(entry);
  return Object.entries(after.mcpServers ?? {}).filter(([name, next]) => {
    const prev = before.mcpServers?.[name];
    return !prev || withoutSource(prev) !== withoutSource(next);
  }).map(([name]) => name);
}

/** What a server runs or calls (arguments included: they are code too), never env or header values. */
function mcpServerShown(server: McpServerSettings): string {
  if (server.url !== undefined) return `calls ${shownUrl(server.url)}`;
  return `runs ${printable([server.command ?? "", ...server.args ?? []].join(" "))}`;
}

function addedPaths(before: PantoConfig, after: PantoConfig): string[] {
  return after.tools.allowedPaths.filter((path) => !before.tools.allowedPaths.includes(path));
}

/** A URL without its user info or query (either may hold a key). */
function shownUrl(url: string): string {
  try {
    const { protocol, username, password, host, pathname, search } = new URL(url);
    const user = username || password ? "***@" : "";
    return printable(`${protocol}//${user}${host}${pathname}${search ? "?…" : ""}`);
  } catch {
    return printable(url);
  }
}

// deno-lint-ignore no-control-regex
const CONTROL_CHARACTERS = /[\x00-\x1f\x7f-\x9f]/g;

/** Control characters escaped (a path may contain any), key-like words masked. */
function printable(text: string): string {
  const escaped = text.replace(
    CONTROL_CHARACTERS,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return redactSecrets(escaped);
}
