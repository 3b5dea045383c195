import { join } from "node:path";
import { FileSystemJSONLStore } from "@panto/lib/jsonl";
import {
  isAbortError,
  NullStore,
  REASONING_LEVELS,
  type ReasoningLevel,
  type SessionStore,
} from "@panto/lib";
import { pickerModels } from "../models/model_choices.ts";
import { UnknownModelError } from "../config/model_registry.ts";
import type { SessionController } from "../controller/session_controller.ts";
import { formatMcpStatus } from "../mcp/format_mcp_status.ts";
import { errorMessage } from "../shared/error_message.ts";
import type { Theme } from "@panto/tui";
import { formatTokens } from "./components/format_tokens.ts";
import type { Copied } from "./clipboard_text.ts";
import { hotkeysText } from "./hotkeys.ts";
import { pickTheme } from "./theme_command.ts";
import type { PickerOptions } from "./picker.ts";
import { sessionPicker } from "./session_picker.ts";
import type { KeybindingTable } from "../config/apply_keybindings.ts";
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
  /** Shows (`true`) or hides thinking blocks, without a notice. */
  setThinkingShown(show: boolean): void;
  /** The chat's key bindings (for /hotkeys and /settings): a change applies at once. */
  readonly keybindings: KeybindingTable;
  /** Asks for a key where the editor is; resolves with its spec (`ctrl+n`) or `null` on esc. */
  captureKey(title: string): Promise<string | null>;
  /** The theme in use: its name and colours. */
  readonly activeTheme: { readonly name: string; readonly theme: Theme };
  /** Recolours the whole chat with `theme` (called `name`) at once. */
  setTheme(name: string, theme: Theme): void;
  /** Copies text to the clipboard; resolves with how, rejects saying why it could not. */
  copyToClipboard(text: string): Promise<Copied>;
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

/**
 * The built-in slash commands, by name. Those that need much code of their
 * own (settings, reload, export and import: session formats, migrations)
 * import it when first run, so that a chat that never runs them never
 * loads it.
 */
export function slashCommands(): Map<string, SlashCommand> {
  const commands = new Map<string, SlashCommand>([
    ["help", { description: "List commands and keys", run: help }],
    ["hotkeys", { description: "List every key binding, yours included", run: hotkeys }],
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
    ["settings", {
      description: "Edit settings: model, thinking, theme, approvals, compaction, keys",
      run: async (ctx) => (await import("./settings_command.ts")).openSettings(ctx),
    }],
    ["reload", {
      description: "Reload config, theme, keys, skills, templates, AGENTS.md, extensions",
      run: async (ctx) => (await import("./reload_command.ts")).reload(ctx),
    }],
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
    ["export", {
      description: "Export this session [path: .md, .html or .jsonl]",
      run: async (ctx, args) => (await import("./export_commands.ts")).exportSession(ctx, args),
    }],
    ["import", {
      description: "Import a session file (JSONL export, pi, Claude Code) and open it",
      run: async (ctx, args) => (await import("./export_commands.ts")).importSessionFile(ctx, args),
    }],
    ["copy", { description: "Copy the last answer to the clipboard", run: copy }],
    ["theme", { description: "Pick a theme, previewed as you move [name]", run: pickTheme }],
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
    "ctrl+p / shift+ctrl+p next / previous model · ctrl+l pick a model · shift+tab next thinking level",
    "ctrl+g $EDITOR · ctrl+v paste an image · esc twice on an empty editor: /tree · /hotkeys: all keys",
    "alt+o (or ctrl+o on a call that scrolled away) reads the whole session: / search, t tool calls, q back",
    "!command runs a shell command and adds its output to your next prompt · @path attaches a file",
    "!!command runs a shell command and only shows its output (nothing is sent to the model)",
  );
  ctx.notify(lines.join("\n"), "info");
}

function hotkeys(ctx: CommandContext): void {
  ctx.notify(
    hotkeysText({
      keys: ctx.keybindings,
      configured: ctx.controller.config.keybindingSources,
      extensionKeys: ctx.controller.extensions?.keybindings() ?? [],
    }),
    "info",
  );
}

async function model(ctx: CommandContext, args: string): Promise<void> {
  if (!ctx.ensureIdle("switching models")) return;
  const alias = args ? await switchTo(ctx, args) : await pickModel(ctx, "");
  if (alias === undefined) return;
  const { model } = ctx.controller;
  ctx.notify(`Model: ${model.alias} (${model.provider.model})`, "info");
}

/** `/model NAME`: the model it names, else the picker filtered by it (as pi). */
async function switchTo(ctx: CommandContext, name: string): Promise<string | undefined> {
  try {
    ctx.controller.setModel(name);
    return name;
  } catch (error) {
    if (!(error instanceof UnknownModelError)) throw error;
    return await pickModel(ctx, name);
  }
}

/** Picks a model and switches to it; `undefined` when none was picked. */
async function pickModel(ctx: CommandContext, filter: string): Promise<string | undefined> {
  const items = pickerModels(ctx.controller.config);
  if (items.length === 0) {
    ctx.notify(
      'No models to pick from: set a provider\'s key (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, …: `panto models --all` lists them), or add models under "models" in config.json',
      "warning",
    );
    return undefined;
  }
  const current = items.findIndex((item) => item.value === ctx.controller.model.alias);
  const alias = await ctx.pick({
    title: "Model",
    items,
    initialIndex: Math.max(0, current),
    ...(filter ? { initialFilter: filter } : {}),
  });
  if (!alias) return undefined;
  ctx.controller.setModel(alias);
  return alias;
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

async function session(ctx: CommandContext): Promise<void> {
  const state = ctx.controller.state();
  const location = state.persisted
    ? await storeLocation(ctx.controller.store, state.sessionId)
    : "not yet (after the first answer)";
  const { usage } = state;
  const lines = [
    `Session ${state.sessionId}${state.sessionName === undefined ? "" : ` "${state.sessionName}"`}`,
    `Saved in: ${location}`,
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
async function storeLocation(store: SessionStore, id: string): Promise<string> {
  if (store instanceof FileSystemJSONLStore) return join(store.dir, `${id}.jsonl`);
  if (store instanceof NullStore) return "nowhere (--no-session)";
  // Imported here, not with the chat: the SQLite store's code (and node:sqlite) stay unloaded
  // in a chat on another store. A chat on it has it loaded already.
  const { SQLiteStore } = await import("@panto/lib/sqlite");
  if (store instanceof SQLiteStore) return `${store.path} (SQLite)`;
  return "the PostgreSQL store";
}

async function copy(ctx: CommandContext): Promise<void> {
  const text = ctx.lastAnswer();
  if (!text) return ctx.notify("There is no answer to copy yet.", "info");
  let copied: Copied;
  try {
    copied = await ctx.copyToClipboard(text);
  } catch (error) {
    return ctx.notify(`Could not copy the last answer: ${errorMessage(error)}`, "warning");
  }
  const via = [copied.tool, copied.terminal ? "the terminal (OSC 52)" : undefined]
    .filter((how) => how !== undefined).join(" and ");
  const hint = copied.tool === undefined
    ? " If the clipboard stays empty, the terminal ignores OSC 52 (in tmux: set -g set-clipboard on)."
    : "";
  ctx.notify(
    `Copied the last answer (${text.length} characters) to the clipboard via ${via}.${hint}`,
    "info",
  );
}
