import { dirname, join, resolve } from "node:path";
import {
  FileSystemJSONLStore,
  isAbortError,
  NullStore,
  REASONING_LEVELS,
  type ReasoningLevel,
  type SessionStore,
  SQLiteStore,
} from "@panto/lib";
import { pickerModels } from "../models/model_choices.ts";
import type { SessionController } from "../controller/session_controller.ts";
import { formatMcpStatus } from "../mcp/mcp_status.ts";
import { errorMessage } from "../error_message.ts";
import { permissionMessage } from "../permission_message.ts";
import { formatTokens } from "./components/format_tokens.ts";
import type { PickerOptions } from "./picker.ts";
import { sessionPicker } from "./session_picker.ts";
import { leavesBranch, type Relabel, SUMMARY_CHOICE, treePicker } from "./tree_view.ts";

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
  /** Shows a picker (a bordered panel where the editor was); resolves with the chosen value or `null` on escape. */
  pick<T>(options: Omit<PickerOptions<T>, "replace">): Promise<T | null>;
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
    ["session", {
      description: "Show this session: id, file, messages, tokens, cost",
      run: session,
    }],
    ["name", { description: "Name this session", run: name }],
    ["mcp", {
      description: "List MCP servers, their state and tools",
      run: async (ctx) => ctx.notify(formatMcpStatus(await ctx.controller.mcpStatus())),
    }],
    ["fork", {
      description: "Start a new session from a point of this one (picker)",
      run: fork,
    }],
    ["tree", {
      description: "Browse this session's branches, continue from any point, label entries",
      run: tree,
    }],
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
  const prompts = ctx.controller.promptCommands().filter((c) => !ctx.commands.has(c.name));
  if (prompts.length) lines.push("", "Prompt templates and skills:");
  for (const extra of prompts) lines.push(`/${extra.name.padEnd(10)} ${extra.description}`);
  lines.push(
    "",
    "enter send · shift+enter (or \\ then enter) newline · esc interrupt · ctrl+c clear, twice to quit",
    "ctrl+d quit on an empty line · ctrl+o expand tool calls · ctrl+t show/hide thinking · ctrl+z suspend",
    "while a turn runs: enter steers it, alt+enter queues a follow-up, alt+up takes the last back",
    "ctrl+p / shift+ctrl+p next / previous model · shift+tab next thinking level · ctrl+g $EDITOR",
    "!command runs a shell command and adds its output to your next prompt · @path attaches a file",
  );
  ctx.notify(lines.join("\n"), "info");
}

async function model(ctx: CommandContext, args: string): Promise<void> {
  if (!ctx.ensureIdle("switching models")) return;
  let alias: string | null = args || null;
  if (!alias) {
    const items = pickerModels(ctx.controller.config);
    if (items.length === 0) {
      return ctx.notify(
        'No models to pick from: set a provider\'s key (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, …: `panto models --all` lists them), or add models under "models" in config.json',
        "warning",
      );
    }
    const current = items.findIndex((item) => item.value === ctx.controller.model.alias);
    alias = await ctx.pick({ title: "Model", items, initialIndex: Math.max(0, current) });
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
    const levels = ctx.controller.thinkingLevels;
    const current = levels.indexOf(ctx.controller.model.provider.reasoning);
    level = await ctx.pick({
      title: "Thinking",
      items: levels.map((l) => ({ value: l, label: l })),
      initialIndex: Math.max(0, current),
    });
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
  const id = await ctx.pick(sessionPicker(sessions, ctx.controller.cwd));
  if (!id) return;
  // (The controller says so when the session is gone.)
  await ctx.controller.switchSession(id);
}

async function newSession(ctx: CommandContext): Promise<void> {
  if (!ctx.ensureIdle("starting a new session")) return;
  await ctx.controller.newSession();
}

async function fork(ctx: CommandContext): Promise<void> {
  if (!ctx.ensureIdle("forking the session")) return;
  const { controller } = ctx;
  // Not saved yet (or kept nowhere): no tree to choose from, the conversation is copied whole.
  if (!controller.session.persisted || !controller.store.fork) {
    await controller.fork();
    return;
  }
  const snapshot = await controller.sessionTree();
  const id = await ctx.pick(treePicker(snapshot, relabeller(ctx), "Fork from"));
  if (id !== null) await controller.forkAt(id);
}

/** Labels an entry of the current session, and reads its tree again. */
function relabeller(ctx: CommandContext): Relabel {
  return async (entryId, label) => {
    await ctx.controller.session.setLabel(entryId, label || null);
    return await ctx.controller.sessionTree();
  };
}

async function tree(ctx: CommandContext): Promise<void> {
  if (!ctx.ensureIdle("moving in the session tree")) return;
  if (ctx.controller.store instanceof NullStore) {
    return ctx.notify("Nothing is kept with --no-session: there is no tree to browse.", "info");
  }
  const snapshot = await ctx.controller.sessionTree();
  if (snapshot.roots.length === 0) return ctx.notify("Nothing in this session yet.", "info");
  const id = await ctx.pick(treePicker(snapshot, relabeller(ctx)));
  if (id === null) return;
  if (id === snapshot.leafId) return ctx.notify("The session is already there.", "info");
  const how = leavesBranch(snapshot, id) ? await ctx.pick(SUMMARY_CHOICE) : { summarise: false };
  if (how === null) return ctx.notify("Move cancelled: the session stays where it was.", "info");
  if (how.summarise) ctx.notify("Summarising the branch you leave (esc stops it)…", "info");
  try {
    const summary = await ctx.controller.branch(id, how);
    if (summary !== undefined) {
      ctx.notify(`Summary of the branch left (it goes with your next prompt):\n${summary}`, "info");
    }
  } catch (error) {
    if (!isAbortError(error)) throw error;
    ctx.notify("Summary stopped: the session stays where it was.", "warning");
  }
}

async function name(ctx: CommandContext, args: string): Promise<void> {
  if (!args) return ctx.notify("Usage: /name NAME", "info");
  await ctx.controller.nameSession(args);
}

function session(ctx: CommandContext): void {
  const state = ctx.controller.state();
  const { usage } = state;
  const lines = [
    `Session ${state.sessionId}${state.sessionName === undefined ? "" : ` "${state.sessionName}"`}`,
    `Saved in: ${
      state.persisted
        ? storeLocation(ctx.controller.store, state.sessionId)
        : "not yet (after the first answer)"
    }`,
    `Messages: ${state.messageCount}`,
    `Tokens: ${formatTokens(usage.inputTokens)} in, ${formatTokens(usage.outputTokens)} out, ` +
    `${formatTokens(usage.cacheReadTokens)} cache read, ${
      formatTokens(usage.cacheWriteTokens)
    } cache write`,
    `Cost: ${
      state.cost === undefined ? "unknown (no prices for this model)" : `$${state.cost.toFixed(4)}`
    }`,
  ];
  ctx.notify(lines.join("\n"), "info");
}

/** Where a session is kept: its file, or the database. */
function storeLocation(store: SessionStore, id: string): string {
  if (store instanceof FileSystemJSONLStore) return join(store.dir, `${id}.jsonl`);
  if (store instanceof SQLiteStore) return `${store.path} (SQLite)`;
  if (store instanceof NullStore) return "nowhere (--no-session)";
  return "the PostgreSQL store";
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
  // The full id: 8-character prefixes of ids made within a minute are alike.
  const name = `panto-session-${id}.md`;
  let path = resolve(controller.cwd, args || name);
  try {
    if ((await Deno.stat(path).catch(() => null))?.isDirectory) path = join(path, name);
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeTextFile(path, await controller.store.export(id));
  } catch (error) {
    return ctx.notify(exportFailure(path, error), "error");
  }
  ctx.notify(`Exported to ${path}`, "info");
}

/** Why `path` could not be written, and what to do instead. */
function exportFailure(path: string, error: unknown): string {
  if (error instanceof Deno.errors.NotCapable) return permissionMessage(error.message);
  const reason = error instanceof Deno.errors.PermissionDenied
    ? "the file system does not let you write there"
    : error instanceof Deno.errors.NotADirectory || error instanceof Deno.errors.AlreadyExists
    ? "a file stands where a directory of the path should be"
    : errorMessage(error);
  return `Could not export to ${path}: ${reason}. Pass another path: /export PATH`;
}

function copy(ctx: CommandContext): void {
  const text = ctx.lastAnswer();
  if (!text) return ctx.notify("There is no answer to copy yet.", "info");
  ctx.copyToClipboard(text);
  ctx.notify(`Copied ${text.length} characters to the clipboard.`, "info");
}
