import { fileURLToPath } from "node:url";
import type { Message, Tool } from "@panto/lib";
import { ToolRegistrationError } from "@panto/lib";
import type { Component } from "@panto/tui";
import { UiEvents } from "../../../cli/chat/ui_events.ts";
import {
  ExtensionHost,
  type ExtensionHostOptions,
} from "../../../cli/extensions/extension_host.ts";
import type { NotifyLevel, PantoApi } from "../../../cli/extensions/extension_api.ts";

/** Built-in commands the harness reserves, as the app would. */
export const RESERVED_COMMANDS: readonly string[] = ["model", "compact", "help", "quit"];

/** Everything the app side observes from a host. */
export interface Harness {
  host: ExtensionHost;
  uiEvents: UiEvents;
  /** Tools by name, as registered with the "agent". */
  tools: Map<string, Tool>;
  reports: string[];
  notifications: { text: string; level: NotifyLevel | undefined }[];
  sentMessages: string[];
  /** Titles of the pickers commands asked for (each answers with its last item). */
  selects: string[];
  /** The app's live conversation. */
  conversation: Message[];
  mounted: { component: Component; eventName: string }[];
  uiErrors: unknown[];
}

/**
 * A host wired like the app wires it: a real UiEvents, a tool registry that
 * rejects taken names like the agent's, and recorders for the rest.
 * `modules` maps virtual paths to module namespaces for the `importModule`
 * seam; real paths are imported for real.
 */
export function makeHarness(
  options: {
    modules?: Record<string, unknown>;
    mode?: "interactive" | "print";
    builtinTools?: string[];
    cwd?: string;
    loadTimeoutMs?: number;
  } = {},
): Harness {
  const harness: Omit<Harness, "host"> = {
    uiEvents: new UiEvents({
      onError: (error) => harness.uiErrors.push(error),
      mount: (component, eventName) => harness.mounted.push({ component, eventName }),
    }),
    tools: new Map(),
    reports: [],
    notifications: [],
    sentMessages: [],
    selects: [],
    conversation: [],
    mounted: [],
    uiErrors: [],
  };
  for (const name of options.builtinTools ?? []) {
    harness.tools.set(name, {
      decl: { name, description: "", inputSchema: {} },
      execute: () => [],
    });
  }
  const hostOptions: ExtensionHostOptions = {
    version: "9.9.9",
    cwd: options.cwd ?? "/project",
    mode: options.mode ?? "interactive",
    uiEvents: harness.uiEvents,
    registerTool: (tool) => {
      if (harness.tools.has(tool.decl.name)) {
        throw new ToolRegistrationError(`Tool name "${tool.decl.name}" is already registered`);
      }
      harness.tools.set(tool.decl.name, tool);
    },
    reservedCommands: RESERVED_COMMANDS,
    context: () => ({
      cwd: options.cwd ?? "/project",
      getConversation: () => harness.conversation,
      notify: (text, level) => harness.notifications.push({ text, level }),
      sendUserMessage: (text) => harness.sentMessages.push(text),
      select: (title, items) => {
        harness.selects.push(title);
        return Promise.resolve(items.at(-1)?.value ?? null);
      },
    }),
    report: (message) => harness.reports.push(message),
  };
  if (options.loadTimeoutMs !== undefined) hostOptions.loadTimeoutMs = options.loadTimeoutMs;
  const modules = options.modules;
  if (modules !== undefined) {
    hostOptions.importModule = (url) => {
      const path = new URL(url).pathname;
      if (path in modules) return Promise.resolve(modules[path]);
      return import(url);
    };
  }
  return { ...harness, host: new ExtensionHost(hostOptions) };
}

/** A module namespace whose default export is `extension`. */
export function moduleOf(extension: (panto: PantoApi) => unknown): { default: unknown } {
  return { default: extension };
}

/** Calls a tool as the agent does and returns its text and error flag. */
export async function callTool(
  tool: Tool,
  args: Record<string, unknown>,
): Promise<{ text: string; isError: boolean }> {
  const output = await tool.execute(args, {
    signal: new AbortController().signal,
    callId: "call-1",
  });
  const parts = Array.isArray(output) ? output : output.parts;
  const isError = Array.isArray(output) ? false : output.isError === true;
  return { text: parts.map((part) => (part.type === "text" ? part.text : "")).join(""), isError };
}

/** The absolute path of a fixture extension. */
export function fixturePath(name: string): string {
  return fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
}

/** The Kitty-protocol sequence of ctrl+shift+<letter> (CSI codepoint ; 6 u). */
export function kittyCtrlShift(letter: string): string {
  return `\x1b[${letter.codePointAt(0)};6u`;
}
