import type { Message, Tool } from "@panto/lib";
import type { UiEvents } from "../chat/ui_events.ts";
import type { ExtensionHost } from "../extensions/extension_host.ts";
import type { ChatArgs } from "../setup/args.ts";
import type { UntrustedProjectPolicy } from "../config/project_trust.ts";
import type { NotifyLevel, PantoApi } from "../extensions/extension_api.ts";
import { discoverExtensions } from "../extensions/discover.ts";
import { settleExtensionTrust } from "../extensions/extension_trust.ts";
import { VERSION } from "../version.ts";

/** What a view lends extensions. */
export interface ExtensionSurface {
  /** Interactive, print, RPC or ACP mode. */
  mode: PantoApi["mode"];
  /** The view's UI events (`undefined` without a terminal UI: a private instance is made). */
  uiEvents: UiEvents | undefined;
  /** Shows a message (transcript or stderr). */
  notify(text: string, level: NotifyLevel): void;
  /** Submits a prompt as if typed. */
  submit(text: string): void;
  /** Shows a picker (interactive mode; without it, `ctx.select` resolves `null`). */
  select?<T>(
    title: string,
    items: readonly { value: T; label: string; description?: string }[],
  ): Promise<T | null>;
  /** Built-in slash commands extensions may not take. */
  reservedCommands: readonly string[];
  /**
   * Aborts when the view is done with the extensions (an ACP session that
   * closes, while the process serves others): the host stops catching
   * uncaught errors, so it can be freed. Without it, the host lives as long
   * as the process.
   */
  closed?: AbortSignal;
}

/** What the session controller lends the extension loader. */
export interface ExtensionTarget {
  /** The working directory. */
  cwd: string;
  /** panto's home directory. */
  pantoHome: string;
  /** What to do with the project's untrusted extensions. */
  untrustedProject: UntrustedProjectPolicy;
  /** Registers a tool with the current agent and every later one. */
  registerTool(tool: Tool): void;
  /** The current conversation's messages. */
  messages(): readonly Message[];
  /**
   * How many times the extensions were loaded before (`/reload`): modules
   * are then imported again under a new URL, so that edited files are read.
   */
  reloads?: number;
}

/**
 * The extension modules {@linkcode loadExtensions} loads: discovered, and
 * the project's own kept only once trusted (see `settleExtensionTrust`).
 *
 * @param target Where to look, and the untrusted-project policy.
 * @param args The parsed command line (`-e`, `--no-extensions`).
 * @returns The modules, and a notice when some were left out.
 * @throws {UsageError} Under the `refuse` policy, for untrusted project extensions.
 *
 * @example
 * ```ts ignore
 * const { paths } = await extensionsToLoad({ cwd, pantoHome, untrustedProject: "refuse" }, args);
 * ```
 */
export async function extensionsToLoad(
  target: Pick<ExtensionTarget, "cwd" | "pantoHome" | "untrustedProject">,
  args: ChatArgs,
): Promise<{ paths: string[]; notice?: string }> {
  const discovered = await discoverExtensions({
    pantoHome: target.pantoHome,
    cwd: target.cwd,
    extra: args.extensions,
    includeDefaults: !args.noExtensions,
  });
  return await settleExtensionTrust(
    discovered,
    target.cwd,
    target.pantoHome,
    target.untrustedProject,
  );
}

/**
 * Discovers and loads the extensions (`$PANTO_HOME/extensions`,
 * `.panto/extensions`, `-e`), registering their tools through `target`.
 * A failing extension is reported and disabled; panto goes on. The
 * project's own extensions load only once trusted (see
 * `settleExtensionTrust`).
 *
 * @param target The session controller's side.
 * @param args The parsed command line.
 * @param surface What the view lends extensions.
 * @returns The host, for commands and keys (`undefined` when there are no
 *   extensions: the extension machinery is then never loaded).
 */
export async function loadExtensions(
  target: ExtensionTarget,
  args: ChatArgs,
  surface: ExtensionSurface,
): Promise<ExtensionHost | undefined> {
  const { paths, notice } = await extensionsToLoad(target, args);
  if (notice) surface.notify(notice, "warning");
  if (paths.length === 0) return undefined;
  const [{ ExtensionHost }, { UiEvents }] = await Promise.all([
    import("../extensions/extension_host.ts"),
    import("../chat/ui_events.ts"),
  ]);
  const host = new ExtensionHost({
    version: VERSION,
    cwd: target.cwd,
    mode: surface.mode,
    uiEvents: surface.uiEvents ?? new UiEvents(),
    registerTool: (tool) => target.registerTool(tool),
    reservedCommands: surface.reservedCommands,
    context: () => ({
      cwd: target.cwd,
      getConversation: () => target.messages(),
      notify: (text, level) => surface.notify(text, level ?? "info"),
      sendUserMessage: (text) => surface.submit(text),
      select: (title, items) => surface.select?.(title, items) ?? Promise.resolve(null),
    }),
    report: (message) => surface.notify(message, "error"),
    ...(target.reloads ? { importModule: (url) => import(`${url}?reload=${target.reloads}`) } : {}),
  });
  const listening = surface.closed ? { signal: surface.closed } : {};
  globalThis.addEventListener("error", (event) => {
    if (host.handleUncaughtError(event.error)) event.preventDefault();
  }, listening);
  globalThis.addEventListener("unhandledrejection", (event) => {
    if (host.handleUncaughtError(event.reason)) event.preventDefault();
  }, listening);
  await host.load(paths);
  return host;
}
