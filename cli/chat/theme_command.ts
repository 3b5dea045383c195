/**
 * `/theme`: a picker of the built-in and file themes that recolours the
 * chat as the selection moves; esc puts the theme back, enter keeps it and
 * saves it as `theme` in `$PANTO_HOME/config.json`. `/theme NAME` switches
 * at once.
 *
 * @module
 */
import { createTheme, type SelectItem, type Theme } from "@panto/tui";
import { join } from "node:path";
import { shownPath } from "../config/config_layers.ts";
import { writeConfigValue } from "../config/write_config_value.ts";
import { optionalEnv } from "../shared/env.ts";
import { errorMessage } from "../shared/error_message.ts";
import {
  listThemes,
  loadTheme,
  themeDirectories,
  type ThemeDirectory,
} from "../themes/theme_lookup.ts";
import type { CommandContext } from "./slash_commands.ts";

/**
 * Opens the theme picker (or, given a name, uses that theme) and saves the
 * choice.
 *
 * @param ctx The chat.
 * @param args A theme's name, or nothing for the picker.
 */
export async function pickTheme(ctx: CommandContext, args: string): Promise<void> {
  const { pantoHome, cwd } = ctx.controller;
  const directories = themeDirectories(pantoHome, cwd, optionalEnv("HOME"));
  const before = ctx.activeTheme;
  const preview = new Preview(ctx, directories);
  const name = args.trim() || await choose(ctx, directories, preview);
  if (name === null) return;
  try {
    ctx.setTheme(name, await chatTheme(name, directories));
  } catch (error) {
    ctx.setTheme(before.name, before.theme);
    const message = errorMessage(error);
    const shown = preview.reported(message) ? `"${name}" has the mistakes shown above` : message;
    return ctx.notify(`${shown}\nKept the theme "${before.name}".`, "error");
  }
  await save(ctx, name).catch((error) => ctx.notify(errorMessage(error), "error"));
}

/**
 * Recolours the chat with the theme `name` (for /settings, which saves it
 * itself).
 *
 * @param ctx The chat.
 * @param name A theme's name.
 * @throws {UsageError} When there is no such theme or its file has mistakes.
 */
export async function useTheme(ctx: CommandContext, name: string): Promise<void> {
  const { pantoHome, cwd } = ctx.controller;
  const directories = themeDirectories(pantoHome, cwd, optionalEnv("HOME"));
  ctx.setTheme(name, await chatTheme(name, directories));
}

/**
 * The names /theme and /settings offer: the built-in themes, then the
 * theme files of `$PANTO_HOME/themes` and `.panto/themes`.
 *
 * @param ctx The chat.
 * @returns The names.
 */
export async function themeNames(ctx: CommandContext): Promise<string[]> {
  const { pantoHome, cwd } = ctx.controller;
  const directories = themeDirectories(pantoHome, cwd, optionalEnv("HOME"));
  return (await listThemes(directories)).map((entry) => entry.name);
}

/** The theme `name` as the chat draws it (plain under `NO_COLOR`). */
async function chatTheme(name: string, directories: readonly ThemeDirectory[]): Promise<Theme> {
  return createTheme(await loadTheme(name, directories));
}

/** The chat's theme at start, and why it is not the configured one when it is not. */
export interface StartTheme {
  /** The theme's name. */
  name: string;
  /** Its colours. */
  theme: Theme;
  /** Why the configured theme could not be used (its file's mistakes), if it could not. */
  problem?: string;
}

/**
 * The configured theme (`theme` in config.json; `dark` when unset), reading
 * only its file; the built-in `dark` one when that fails, with the reason.
 *
 * @param controller The session controller (config, home, working directory).
 * @returns The theme to start with.
 */
export async function startTheme(
  controller: Pick<CommandContext["controller"], "config" | "pantoHome" | "cwd">,
): Promise<StartTheme> {
  const name = controller.config.theme ?? "dark";
  const directories = themeDirectories(controller.pantoHome, controller.cwd, optionalEnv("HOME"));
  try {
    return { name, theme: await chatTheme(name, directories) };
  } catch (error) {
    const problem = `${errorMessage(error)}\nUsing the dark theme: fix ${
      controller.config.themeSource ?? "the config"
    } or the theme, or pick one with /theme.`;
    return { name: "dark", theme: createTheme(), problem };
  }
}

/**
 * Shows the picker, previewing each highlighted theme; resolves with the
 * chosen name, or `null` on esc, the theme before restored.
 */
async function choose(
  ctx: CommandContext,
  directories: readonly ThemeDirectory[],
  preview: Preview,
): Promise<string | null> {
  const before = ctx.activeTheme;
  const entries = await listThemes(directories);
  const items: SelectItem<string>[] = entries.map((entry) => ({
    value: entry.name,
    label: entry.name,
    description: entry.scope === "project" ? `${entry.source} (project)` : entry.source,
  }));
  const chosen = await ctx.pick({
    title: "Theme",
    items,
    initialIndex: Math.max(0, entries.findIndex((entry) => entry.name === before.name)),
    onHighlight: (name) => preview.show(name),
  });
  preview.stop();
  if (chosen === null) ctx.setTheme(before.name, before.theme);
  return chosen;
}

/**
 * Applies highlighted themes as they load. Loading a file takes a moment:
 * only the last one highlighted is applied, and nothing after the picker closes.
 */
class Preview {
  readonly #ctx: CommandContext;
  readonly #directories: readonly ThemeDirectory[];
  /** Problems already shown, so moving over a broken theme again says nothing new. */
  readonly #reported = new Set<string>();
  #latest: string | undefined;
  #open = true;

  constructor(ctx: CommandContext, directories: readonly ThemeDirectory[]) {
    this.#ctx = ctx;
    this.#directories = directories;
  }

  show(name: string): void {
    this.#latest = name;
    chatTheme(name, this.#directories).then(
      (theme) => {
        if (this.#open && this.#latest === name) this.#ctx.setTheme(name, theme);
      },
      (error) => {
        const message = errorMessage(error);
        if (!this.#open || this.#reported.has(message)) return;
        this.#reported.add(message);
        this.#ctx.notify(message, "error");
      },
    );
  }

  stop(): void {
    this.#open = false;
  }

  /** Whether this problem was shown while previewing. */
  reported(message: string): boolean {
    return this.#reported.has(message);
  }
}

async function save(ctx: CommandContext, name: string): Promise<void> {
  const { config, pantoHome } = ctx.controller;
  const shown = shownPath(join(pantoHome, "config.json"), optionalEnv("HOME"));
  await writeConfigValue(join(pantoHome, "config.json"), shown, ["theme"], name);
  const notes = [`Theme "${name}" saved in ${shown}.`];
  if (config.themeSource !== undefined && config.themeSource !== shown) {
    notes.push(`${config.themeSource} sets "theme" too, and wins at the next start.`);
  }
  if (!ctx.activeTheme.theme.colorEnabled) notes.push("NO_COLOR is set, so colours stay off.");
  ctx.notify(notes.join(" "), "info");
}
