import { resolve } from "node:path";
import { REASONING_LEVELS, type ReasoningLevel, redactUrl, type SessionInfo } from "@panto/lib";
import type { SelectItem } from "@panto/tui";
import { modelChoices } from "../config/model_registry.ts";
import type { SessionController } from "../controller/session_controller.ts";

/** What slash commands may use: the controller and a few things of the view. */
export interface CommandContext {
  /** The session controller (session, model, queue, compaction). */
  readonly controller: SessionController;
  /** The built-in commands, for /help. */
  readonly commands: ReadonlyMap<string, SlashCommand>;
  /** Whether nothing runs; otherwise warns that `action` must wait. */
  ensureIdle(action: string): boolean;
  /** Shows a notice. */
  notify(text: string, level?: "info" | "warning" | "error"): void;
  /** Shows a picker; resolves with the chosen value or `null` on escape. */
  pick<T>(title: string, items: readonly SelectItem<T>[], initialIndex?: number): Promise<T | null>;
  /** Shows or hides thinking blocks. */
  toggleThinking(): void;
  /** Copies text to the clipboard. */
  copyToClipboard(text: string): void;
  /** The text of the last answer. */
  lastAnswer(): string | undefined;
  /** Quits. */
  quit(): void;
}

/** A built-in slash command. */
export interface SlashCommand {
  /** One line for /help and completion. */
  description: string;
  /** Runs it with the text after the command name. */
  run(context: CommandContext, args: string): void | Promise<void>;
}

/** The built-in slash commands, by name. */
export function slashCommands(): Map<string, SlashCommand> {
  const commands = new Map<string, SlashCommand>([
    ["help", { description: "List commands and keys", run: help }],
    ["model", { description: "Switch model (picker without a name)", run: model }],
    ["thinking", { description: "Set the reasoning level: off, low, medium, high", run: thinking }],
    ["compact", {
      description: "Summarise older messages to free context [instructions]",
      run: compact,
    }],
    ["sessions", { description: "Browse saved sessions and resume one", run: resume }],
    ["resume", { description: "Resume a saved session (picker)", run: resume }],
    ["new", { description: "Start a new session", run: newSession }],
    ["name", { description: "Name this session", run: name }],
    ["fork", { description: "Copy this conversation into a new session", run: fork }],
    ["export", { description: "Export this session as Markdown [path]", run: exportSession }],
    ["copy", { description: "Copy the last answer to the clipboard", run: copy }],
    ["quit", { description: "Quit panto", run: (ctx) => ctx.quit() }],
  ]);
  commands.set("exit", commands.get("quit")!);
  return commands;
}

function help(ctx: CommandContext): void {
  const lines = [...ctx.commands.entries()].map(([n, c]) => `/${n.padEnd(10)} ${c.description}`);
  for (const extra of ctx.controller.extensionCommands()) {
    lines.push(`/${extra.name.padEnd(10)} ${extra.description}`);
  }
  lines.push(
    "",
    "enter send · shift+enter (or \\ then enter) newline · esc interrupt · ctrl+c clear, twice to quit",
    "ctrl+d quit on an empty line · ctrl+o expand tool calls · ctrl+t show/hide thinking · ctrl+z suspend",
    "!command runs a shell command and adds its output to your next prompt · @path attaches a file",
  );
  ctx.notify(lines.join("\n"), "info");
}

async function model(ctx: CommandContext, args: string): Promise<void> {
  if (!ctx.ensureIdle("switching models")) return;
  const choices = modelChoices(ctx.controller.config);
  let alias: string | null = args || null;
  if (!alias) {
    const current = choices.findIndex((c) => c.alias === ctx.controller.model.alias);
    alias = await ctx.pick(
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
  ctx.controller.setModel(alias);
  const { model } = ctx.controller;
  ctx.notify(`Model: ${model.alias} (${model.provider.model})`, "info");
}

async function thinking(ctx: CommandContext, args: string): Promise<void> {
  if (!ctx.ensureIdle("changing the reasoning level")) return;
  let level: ReasoningLevel | null = null;
  if (args) {
    if (!(REASONING_LEVELS as readonly string[]).includes(args)) {
      return ctx.notify(
        `Unknown reasoning level "${args}": use one of ${REASONING_LEVELS.join(", ")}`,
        "warning",
      );
    }
    level = args as ReasoningLevel;
  } else {
    const current = REASONING_LEVELS.indexOf(ctx.controller.model.provider.reasoning);
    level = await ctx.pick(
      "Thinking",
      REASONING_LEVELS.map((l) => ({ value: l, label: l })),
      Math.max(0, current),
    );
  }
  if (!level) return;
  ctx.controller.setThinkingLevel(level);
  ctx.notify(`Thinking: ${level}`, "info");
}

async function compact(ctx: CommandContext, args: string): Promise<void> {
  if (!ctx.ensureIdle("compacting")) return;
  // The view shows the result (or the failure) from the controller's events.
  await ctx.controller.compact(args || undefined).catch(() => {});
}

async function resume(ctx: CommandContext): Promise<void> {
  if (!ctx.ensureIdle("switching sessions")) return;
  const sessions = await ctx.controller.listSessions();
  if (sessions.length === 0) return ctx.notify("No saved sessions yet.", "info");
  const id = await ctx.pick("Resume session", sessionItems(sessions));
  if (!id) return;
  // (The controller says so when the session is gone.)
  await ctx.controller.switchSession(id);
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

async function newSession(ctx: CommandContext): Promise<void> {
  if (!ctx.ensureIdle("starting a new session")) return;
  await ctx.controller.newSession();
}

async function fork(ctx: CommandContext): Promise<void> {
  if (!ctx.ensureIdle("forking the session")) return;
  await ctx.controller.fork();
}

async function name(ctx: CommandContext, args: string): Promise<void> {
  if (!args) return ctx.notify("Usage: /name NAME", "info");
  await ctx.controller.nameSession(args);
}

async function exportSession(ctx: CommandContext, args: string): Promise<void> {
  const { controller } = ctx;
  if (!controller.session.persisted) {
    return ctx.notify(
      "Nothing to export yet: the session is saved after the first answer.",
      "info",
    );
  }
  const id = controller.session.id;
  const path = resolve(controller.cwd, args || `panto-session-${id.slice(0, 8)}.md`);
  await Deno.writeTextFile(path, await controller.store.export(id));
  ctx.notify(`Exported to ${path}`, "info");
}

function copy(ctx: CommandContext): void {
  const text = ctx.lastAnswer();
  if (!text) return ctx.notify("There is no answer to copy yet.", "info");
  ctx.copyToClipboard(text);
  ctx.notify(`Copied ${text.length} characters to the clipboard.`, "info");
}
