import type { UiEvents } from "@panto/tui";
import type { ExtensionHost } from "./extensions/extension_host.ts";
import type { App } from "./app_setup.ts";
import type { ChatArgs } from "./args.ts";
import type { NotifyLevel } from "./extensions/extension_api.ts";
import { discoverExtensions } from "./extensions/discover.ts";
import { settleExtensionTrust } from "./extensions/extension_trust.ts";
import { VERSION } from "./version.ts";

/** What the app lends extensions. */
export interface ExtensionSurface {
  /** Interactive or print mode. */
  mode: "interactive" | "print";
  /** The app's UI events (`undefined` in print mode: a private instance is made). */
  uiEvents: UiEvents | undefined;
  /** Shows a message (transcript or stderr). */
  notify(text: string, level: NotifyLevel): void;
  /** Submits a prompt as if typed (interactive only). */
  submit(text: string): void;
  /** Built-in slash commands extensions may not take. */
  reservedCommands: readonly string[];
}

/**
 * Discovers and loads the extensions (`$PANTO_HOME/extensions`,
 * `.panto/extensions`, `-e`), registering their tools with the agent.
 * A failing extension is reported and disabled; panto goes on. The
 * project's own extensions load only once trusted (see
 * `settleExtensionTrust`).
 *
 * @param app The wired app.
 * @param args The parsed command line.
 * @param surface What the app lends extensions.
 * @returns The host, for commands and keys (`undefined` when there are no
 *   extensions: the extension machinery is then never loaded).
 */
export async function loadExtensions(
  app: App,
  args: ChatArgs,
  surface: ExtensionSurface,
): Promise<ExtensionHost | undefined> {
  const discovered = await discoverExtensions({
    pantoHome: app.pantoHome,
    cwd: app.cwd,
    extra: args.extensions,
    includeDefaults: !args.noExtensions,
  });
  const { paths, notice } = await settleExtensionTrust(
    discovered,
    app.cwd,
    app.pantoHome,
    app.untrustedProject,
  );
  if (notice) surface.notify(notice, "warning");
  if (paths.length === 0) return undefined;
  const [{ ExtensionHost }, { UiEvents }] = await Promise.all([
    import("./extensions/extension_host.ts"),
    import("@panto/tui"),
  ]);
  const host = new ExtensionHost({
    version: VERSION,
    cwd: app.cwd,
    mode: surface.mode,
    uiEvents: surface.uiEvents ?? new UiEvents(),
    registerTool: (tool) => {
      app.agent.registerTool(tool);
      app.extraTools.push(tool);
    },
    reservedCommands: surface.reservedCommands,
    context: () => ({
      cwd: app.cwd,
      getConversation: () => app.agent.conversation.messages,
      notify: (text, level) => surface.notify(text, level ?? "info"),
      sendUserMessage: (text) => surface.submit(text),
    }),
    report: (message) => surface.notify(message, "error"),
  });
  globalThis.addEventListener("error", (event) => {
    if (host.handleUncaughtError(event.error)) event.preventDefault();
  });
  globalThis.addEventListener("unhandledrejection", (event) => {
    if (host.handleUncaughtError(event.reason)) event.preventDefault();
  });
  await host.load(paths);
  app.extensionCommands = () =>
    [...host.commands()].map(([name, command]) => ({ name, description: command.description }));
  return host;
}
