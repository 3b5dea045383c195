/**
 * `/reload`: config, themes, key bindings, skills, prompt templates,
 * context files and extensions read again and applied to the running chat,
 * which keeps its session; one notice says what changed. A config with a
 * mistake is shown and nothing is applied.
 *
 * @module
 */
import { Keybindings } from "@panto/tui";
import { applyKeybindings, type KeybindingTable } from "../config/apply_keybindings.ts";
import type { PantoConfig } from "../config/panto_config.ts";
import type { ReloadPlan } from "../controller/reload_plan.ts";
import { summarizeReload } from "../controller/reload_summary.ts";
import { errorMessage } from "../shared/error_message.ts";
import { APP_KEYBINDINGS } from "./run_interactive.ts";
import type { CommandContext } from "./slash_commands.ts";
import { startTheme } from "./theme_command.ts";

/**
 * Runs `/reload` (refused while a turn runs).
 *
 * @param ctx The chat.
 *
 * @example
 * ```ts ignore
 * commands.set("reload", { description: "Reload config, themes, skills…", run: reload });
 * ```
 */
export async function reload(ctx: CommandContext): Promise<void> {
  if (!ctx.ensureIdle("reloading")) return;
  const { controller } = ctx;
  const before = await controller.reloadSnapshot(ctx.activeTheme.name);
  let plan: ReloadPlan;
  try {
    plan = await controller.readReload();
    // A bad key spec fails here, on a spare table, before anything changes.
    applyKeybindings(new Keybindings(APP_KEYBINDINGS), plan.config);
  } catch (error) {
    return ctx.notify(
      `Reload failed, nothing changed (the config in force stays): ${errorMessage(error)}`,
      "error",
    );
  }
  const { pantoHome, cwd } = controller;
  const theme = await startTheme({ config: plan.config, pantoHome, cwd });
  const previous = controller.config;
  const notices = await controller.applyReload(plan);
  rebind(ctx.keybindings, previous, plan.config);
  if (previous.hideThinkingBlock !== plan.config.hideThinkingBlock) {
    ctx.setThinkingShown(!plan.config.hideThinkingBlock);
  }
  if (theme.problem === undefined) ctx.setTheme(theme.name, theme.theme);
  else notices.push(themeProblem(theme.problem, ctx.activeTheme.name));
  ctx.notify(summarizeReload(before, await controller.reloadSnapshot(ctx.activeTheme.name)));
  for (const notice of notices) ctx.notify(notice, "warning");
}

/** Keys the old config set and the new one does not go back to their defaults; the new ones apply. */
function rebind(table: KeybindingTable, previous: PantoConfig, next: PantoConfig): void {
  const defaults = new Keybindings(APP_KEYBINDINGS);
  for (const action of Object.keys(previous.keybindings)) {
    if (!Object.hasOwn(next.keybindings, action)) table.override(action, defaults.keys(action));
  }
  applyKeybindings(table, next);
}

/** startTheme's problem says it falls back to dark; a reload keeps the theme in use instead. */
function themeProblem(problem: string, kept: string): string {
  const [reason] = problem.split("\n");
  return `${reason}\nKept the theme "${kept}": fix the theme or the config and /reload again.`;
}
