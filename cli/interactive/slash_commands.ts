import { resolve } from "node:path";
import { REASONING_LEVELS, type ReasoningLevel, redactUrl, type SessionInfo } from "@panto/lib";
import type { SelectItem } from "@panto/tui";
import { modelChoices } from "../config/model_registry.ts";
import type { ChatApp } from "./chat_app.ts";

/** A built-in slash command. */
export interface SlashCommand {
  /** One line for /help and completion. */
  description: string;
  /** Runs it with the text after the command name. */
  run(app: ChatApp, args: string): void | Promise<void>;
}

/** The built-in slash commands, by name. */
export function slashCommands(): Map<string, SlashCommand> {
  const commands = new Map<string, SlashCommand>([
    ["help", { description: "List commands and keys", run: help }],
    ["model", { description: "Switch model (picker without a name)", run: model }],
    ["thinking", { description: "Set the reasoning level: off, low, medium, high", run: thinking }],
    ["compact", {
      description: "Summarise older messages to free context [instructions]",
      run: (app, args) => app.compact(args || undefined),
    }],
    ["sessions", { description: "Browse saved sessions and resume one", run: resume }],
    ["resume", { description: "Resume a saved session (picker)", run: resume }],
    ["new", { description: "Start a new session", run: newSession }],
    ["name", { description: "Name this session", run: name }],
    ["export", { description: "Export this session as Markdown [path]", run: exportSession }],
    ["copy", { description: "Copy the last answer to the clipboard", run: copy }],
    ["quit", { description: "Quit panto", run: (app) => app.quit() }],
  ]);
  commands.set("exit", commands.get("quit")!);
  return commands;
}

function help(app: ChatApp): void {
  const lines = [...app.commands.entries()].map(([n, c]) => `/${n.padEnd(10)} ${c.description}`);
  for (const extra of app.app.extensionCommands?.() ?? []) {
    lines.push(`/${extra.name.padEnd(10)} ${extra.description}`);
  }
  lines.push(
    "",
    "enter send · shift+enter (or \\ then enter) newline · esc interrupt · ctrl+c clear, twice to quit",
    "ctrl+d quit on an empty line · ctrl+o expand tool calls · ctrl+t show/hide thinking · ctrl+z suspend",
    "!command runs a shell command and adds its output to your next prompt · @path attaches a file",
  );
  app.notify(lines.join("\n"), "info");
}

async function model(app: ChatApp, args: string): Promise<void> {
  if (!app.ensureIdle("switching models")) return;
  const choices = modelChoices(app.app.config);
  let alias: string | null = args || null;
  if (!alias) {
    const current = choices.findIndex((c) => c.alias === app.app.selection.alias);
    alias = await app.pick(
      "Model",
      choices.map((c) => ({
        value: c.alias,
        label: c.alias,
        description: `${c.provider.model} · ${redactUrl(c.provider.baseUrl)}`,
      })),
      Math.max(0, current),
    );
  }
  if (!alias) return;
  app.setModel(alias);
  app.notify(`Model: ${app.app.selection.alias} (${app.agent.config.provider.model})`, "info");
}

async function thinking(app: ChatApp, args: string): Promise<void> {
  if (!app.ensureIdle("changing the reasoning level")) return;
  let level: ReasoningLevel | null = null;
  if (args) {
    if (!(REASONING_LEVELS as readonly string[]).includes(args)) {
      return app.notify(
        `Unknown reasoning level "${args}": use one of ${REASONING_LEVELS.join(", ")}`,
        "warning",
      );
    }
    level = args as ReasoningLevel;
  } else {
    const current = REASONING_LEVELS.indexOf(app.agent.config.provider.reasoning);
    level = await app.pick(
      "Thinking",
      REASONING_LEVELS.map((l) => ({ value: l, label: l })),
      Math.max(0, current),
    );
  }
  if (!level) return;
  app.setModel(app.app.selection.alias, level);
  app.notify(`Thinking: ${level}`, "info");
}

async function resume(app: ChatApp): Promise<void> {
  if (!app.ensureIdle("switching sessions")) return;
  const sessions = await app.app.store.list({ limit: 200 });
  if (sessions.length === 0) return app.notify("No saved sessions yet.", "info");
  const id = await app.pick("Resume session", sessionItems(sessions));
  if (!id) return;
  const session = await app.app.store.resolve(id);
  if (!session) return app.notify(`Session ${id} is gone.`, "warning");
  await app.switchSession(session, false);
}

/**
 * Picker items for saved sessions: name (else the last prompt), date,
 * message count and the start of the id.
 *
 * @param sessions The sessions, as listed by the store.
 * @returns One item per session, valued by its id.
 */
export function sessionItems(sessions: readonly SessionInfo[]): SelectItem<string>[] {
  return sessions.map((s) => ({
    value: s.id,
    label: s.name ?? (s.lastUserMessage.replace(/\s+/g, " ").slice(0, 60) || "(empty)"),
    description: `${s.modified.slice(0, 16).replace("T", " ")} · ${s.messageCount} messages · ${
      s.id.slice(0, 8)
    }`,
  }));
}

async function newSession(app: ChatApp): Promise<void> {
  if (!app.ensureIdle("starting a new session")) return;
  await app.switchSession(app.app.store.create({ cwd: app.app.cwd }), true);
  app.notify("New session.", "info");
}

async function name(app: ChatApp, args: string): Promise<void> {
  if (!args) return app.notify("Usage: /name NAME", "info");
  await app.nameSession(args);
}

async function exportSession(app: ChatApp, args: string): Promise<void> {
  if (!app.agent.session.persisted) {
    return app.notify(
      "Nothing to export yet: the session is saved after the first answer.",
      "info",
    );
  }
  const path = resolve(app.app.cwd, args || `panto-session-${app.agent.sessionId.slice(0, 8)}.md`);
  await Deno.writeTextFile(path, await app.app.store.export(app.agent.sessionId));
  app.notify(`Exported to ${path}`, "info");
}

function copy(app: ChatApp): void {
  const text = app.lastAnswer();
  if (!text) return app.notify("There is no answer to copy yet.", "info");
  app.copyToClipboard(text);
  app.notify(`Copied ${text.length} characters to the clipboard.`, "info");
}
