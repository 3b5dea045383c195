/**
 * The everyday settings `/settings` edits: for each, the config key, how
 * its value reads, how the user picks a new one, and how a saved value
 * reaches the running chat.
 *
 * @module
 */
import { REASONING_LEVELS, type ReasoningLevel } from "@panto/lib";
import { DEFAULT_KEYBINDINGS } from "@panto/tui";
import { UNBINDABLE_ACTIONS } from "../config/apply_keybindings.ts";
import { errorMessage } from "../shared/error_message.ts";
import { themeNames, useTheme } from "./theme_command.ts";
import type { ConfigPath } from "../config/write_config_value.ts";
import { pickerModels } from "../models/model_choices.ts";
import { pickMany } from "./checklist.ts";
import { APP_KEYBINDINGS } from "./run_interactive.ts";
import type { CommandContext } from "./slash_commands.ts";

/** A new value chosen for a setting. */
export interface SettingChange {
  /** Where it goes in the config file. */
  path: ConfigPath;
  /** The value; `undefined` removes the key (back to the default). */
  value: unknown;
  /** The value as the user reads it. */
  shown: string;
}

/** One entry of `/settings`. */
export interface Setting {
  /** Its name in the list. */
  label: string;
  /** Its config key (for key bindings, the whole `keybindings` object). */
  path: ConfigPath;
  /** How the user's and the project's values combine (default: the project's wins). */
  merge?(user: unknown, project: unknown): unknown;
  /** The value in effect, for the list (`undefined`: no file sets it). */
  show(value: unknown): string;
  /** Asks for a new value, starting from the one in effect; `null` when the user backs out. */
  choose(ctx: CommandContext, value: unknown): Promise<SettingChange | null>;
  /**
   * Makes the running chat use `value`, now in effect at `path`, where it
   * can; returns what happened, e.g. `applies now`, `used from the next start`.
   */
  apply(ctx: CommandContext, value: unknown, path: ConfigPath): string;
}

/** A value among fixed ones. */
interface Choice {
  /** The value written (`undefined` removes the key). */
  value: unknown;
  /** How it reads. */
  label: string;
  /** Dimmed text after it. */
  description?: string;
}

/** A setting chosen among fixed values, the default one preselected when no file sets it. */
function oneOf(
  setting: Pick<Setting, "label" | "path" | "show" | "apply"> & {
    title: string;
    byDefault: unknown;
    choices(ctx: CommandContext): Choice[] | Promise<Choice[]>;
  },
): Setting {
  const { path, title, byDefault, choices, ...rest } = setting;
  return {
    ...rest,
    path,
    choose: async (ctx, current) => {
      const offered = await choices(ctx);
      const index = await ctx.pick({
        title,
        items: offered.map((choice, i) => ({ ...choice, value: i })),
        initialIndex: Math.max(0, offered.findIndex((c) => c.value === (current ?? byDefault))),
      });
      const choice = index === null ? undefined : offered[index];
      return choice ? { path, value: choice.value, shown: choice.label } : null;
    },
  };
}

/** A list setting: tick entries in a checklist; none ticked removes the key. */
function ticks(
  setting: Pick<Setting, "label" | "path" | "merge" | "apply"> & {
    title: string;
    none: string;
    options(ctx: CommandContext): string[];
  },
): Setting {
  const { path, title, none, options, ...rest } = setting;
  return {
    ...rest,
    path,
    show: (value) => list(value, none),
    choose: async (ctx, current) => {
      const ticked = Array.isArray(current) ? current.map(String) : [];
      const chosen = await pickMany((o) => ctx.pick(o), title, options(ctx), ticked);
      if (chosen === null) return null;
      return { path, value: chosen.length ? chosen : undefined, shown: list(chosen, none) };
    },
  };
}

function list(value: unknown, none: string): string {
  return Array.isArray(value) && value.length ? value.join(", ") : none;
}

const ON_OFF: Choice[] = [{ value: true, label: "on" }, { value: false, label: "off" }];

const defaultModel = oneOf({
  label: "Default model",
  path: ["defaultModel"],
  title: "Default model",
  byDefault: undefined,
  choices: (ctx) => [
    { value: undefined, label: "not set", description: "a model of the first provider with a key" },
    ...pickerModels(ctx.controller.config),
  ],
  show: (value) => typeof value === "string" ? value : "not set",
  apply: () => "used from the next start (/model switches this chat)",
});

const defaultThinkingLevel = oneOf({
  label: "Default thinking",
  path: ["defaultThinkingLevel"],
  title: "Default thinking level (of models whose alias sets none)",
  byDefault: "off",
  choices: () => REASONING_LEVELS.map((level) => ({ value: level, label: level })),
  show: (value) => typeof value === "string" ? value : "off",
  apply: (ctx, value) => {
    const level = (value ?? "off") as ReasoningLevel;
    if (value === undefined) delete ctx.controller.config.defaultThinkingLevel;
    else ctx.controller.config.defaultThinkingLevel = level;
    ctx.controller.setThinkingLevel(level);
    return `this chat now thinks at ${ctx.controller.model.provider.reasoning}`;
  },
});

const thinkingBlocks = oneOf({
  label: "Thinking blocks",
  path: ["hideThinkingBlock"],
  title: "Thinking blocks",
  byDefault: false,
  choices: () => [{ value: false, label: "shown" }, { value: true, label: "hidden" }],
  show: (value) => value === true ? "hidden" : "shown",
  apply: (ctx, value) => {
    ctx.setThinkingShown(value !== true);
    return "applies now (ctrl+t toggles them for a while)";
  },
});

const theme = oneOf({
  label: "Theme",
  path: ["theme"],
  title: "Theme",
  byDefault: "dark",
  choices: async (ctx) =>
    (await themeNames(ctx)).map((name) => ({
      value: name,
      label: name,
    })),
  show: (value) => typeof value === "string" ? value : "dark",
  apply: (ctx, value) => {
    const name = typeof value === "string" ? value : "dark";
    useTheme(ctx, name).catch((error) => ctx.notify(errorMessage(error), "error"));
    return "applies now";
  },
});

const autoCompaction = oneOf({
  label: "Auto-compaction",
  path: ["compaction", "enabled"],
  title: "Compact automatically near the context window",
  byDefault: true,
  choices: () => ON_OFF,
  show: (value) => value === false ? "off" : "on",
  apply: (ctx, value) => {
    if (value === undefined) delete ctx.controller.config.compaction.enabled;
    else ctx.controller.config.compaction.enabled = value === true;
    ctx.controller.applyConfig();
    return "applies now";
  },
});

const cycleModels = ticks({
  label: "Cycle models",
  path: ["cycleModels"],
  title: "Models ctrl+p cycles through (in the order ticked; none: every alias)",
  none: "every alias",
  options: (ctx) => pickerModels(ctx.controller.config).map((model) => model.value),
  apply: (ctx, value) => {
    if (Array.isArray(value)) ctx.controller.config.cycleModels = value.map(String);
    else delete ctx.controller.config.cycleModels;
    return "ctrl+p uses them now";
  },
});

const toolApprovals = ticks({
  label: "Tool approvals",
  path: ["tools", "requireApproval"],
  title: "Tools that need your approval",
  none: "none",
  options: (ctx) => ctx.controller.agent.tools.map((tool) => tool.decl.name),
  // Both files add up: a project cannot drop an approval the user asked for.
  merge: (user, project) => {
    const all = [user, project].flatMap((value) => Array.isArray(value) ? value : []);
    return all.length ? [...new Set(all)] : undefined;
  },
  apply: (ctx, value) => {
    if (Array.isArray(value)) ctx.controller.config.tools.requireApproval = value.map(String);
    else delete ctx.controller.config.tools.requireApproval;
    return "applies to the next tool call";
  },
});

/** The chat's key actions and their built-in keys. */
function defaultKeys(): Record<string, readonly string[]> {
  return { ...DEFAULT_KEYBINDINGS, ...APP_KEYBINDINGS };
}

const PRESS = Symbol("press");
const ADD = Symbol("add");

const editorKeys: Setting = {
  label: "Editor keys",
  path: ["keybindings"],
  show: (value) => {
    const changed = Object.keys(value as object ?? {}).length;
    return changed ? `${changed} changed` : "the defaults";
  },
  choose: async (ctx, value) => {
    const configured = (value ?? {}) as Record<string, unknown>;
    const action = await ctx.pick({
      title: "Editor keys: choose an action",
      items: Object.keys(defaultKeys()).map((name) => ({
        value: name,
        label: name,
        description: `${list(ctx.keybindings.keys(name), "unbound")}${
          Object.hasOwn(configured, name) ? " (changed)" : ""
        }`,
      })),
    });
    return action === null ? null : await chooseKeys(ctx, action);
  },
  apply: (ctx, value, path) => {
    const action = String(path[1]);
    const keys = Array.isArray(value) ? value.map(String) : [...defaultKeys()[action] ?? []];
    const kept = UNBINDABLE_ACTIONS.includes(action) ? defaultKeys()[action] ?? [] : [];
    ctx.keybindings.override(action, [...new Set([...kept, ...keys])]);
    return `applies now${clash(ctx, action, keys)}`;
  },
};

async function chooseKeys(ctx: CommandContext, action: string): Promise<SettingChange | null> {
  const path = ["keybindings", action];
  const current = ctx.keybindings.keys(action);
  const builtin = defaultKeys()[action] ?? [];
  const how = await ctx.pick<typeof PRESS | typeof ADD | readonly string[]>({
    title: `Keys of ${action}: ${list(current, "unbound")}`,
    items: [
      { value: PRESS, label: "Press a new key…", description: "replaces the keys it has" },
      { value: ADD, label: "Add a key…", description: `keeps ${list(current, "none")}` },
      { value: builtin, label: "Default", description: list(builtin, "unbound") },
      ...UNBINDABLE_ACTIONS.includes(action)
        ? []
        : [{ value: [], label: "Unbind", description: "no key" }],
    ],
  });
  if (how === null) return null;
  if (how !== PRESS && how !== ADD) {
    return { path, value: how === builtin ? undefined : [], shown: list(how, "unbound") };
  }
  const key = await ctx.captureKey(`Key for ${action}`);
  if (key === null) return null;
  const keys = how === ADD ? [...new Set([...current, key])] : [key];
  return { path, value: keys, shown: keys.join(", ") };
}

/** Lists have their own keys (`select.*`); the chat's and the editor's are live together. */
function scope(action: string): string {
  return action.startsWith("select.") ? "list" : "chat";
}

/** `; ctrl+g is also bound to app.externalEditor`, for keys another action of the same scope has. */
function clash(ctx: CommandContext, action: string, keys: readonly string[]): string {
  const notes = keys.flatMap((key) => {
    const others = Object.keys(defaultKeys()).filter((other) =>
      other !== action && scope(other) === scope(action) &&
      ctx.keybindings.keys(other).includes(key)
    );
    return others.length ? [`${key} is also bound to ${others.join(", ")}`] : [];
  });
  return notes.map((note) => `; ${note}`).join("");
}

/** The settings `/settings` lists, in order. */
export const SETTINGS: readonly Setting[] = [
  defaultModel,
  defaultThinkingLevel,
  thinkingBlocks,
  theme,
  cycleModels,
  toolApprovals,
  autoCompaction,
  editorKeys,
];
