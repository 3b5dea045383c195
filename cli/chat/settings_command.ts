/**
 * `/settings`: the everyday settings in a picker. A new value is written to
 * `$PANTO_HOME/config.json` (or, when the project's `.panto/config.json`
 * sets it, to the file the user chooses) with the file's comments and order
 * kept, checked by the config schema first, and applied to the running chat
 * where it can be; one line says what was saved where and what it did.
 *
 * @module
 */
import { type ConfigLayer, readConfigLayers, valueAt } from "../config/config_layers.ts";
import { writeConfigValue } from "../config/write_config_value.ts";
import { optionalEnv } from "../shared/env.ts";
import { errorMessage } from "../shared/error_message.ts";
import { type Setting, type SettingChange, SETTINGS } from "./settings_catalog.ts";
import type { CommandContext } from "./slash_commands.ts";

/** Width of the setting names column. */
const LABEL_WIDTH = 18;

/**
 * Runs `/settings` until the user leaves it with esc.
 *
 * @param ctx The chat.
 *
 * @example
 * ```ts ignore
 * commands.set("settings", { description: "Edit settings", run: (ctx) => openSettings(ctx) });
 * ```
 */
export async function openSettings(ctx: CommandContext): Promise<void> {
  if (!ctx.ensureIdle("changing settings")) return;
  let at = 0;
  while (true) {
    const layers = await readLayers(ctx);
    for (const layer of layers) {
      if (layer.error) ctx.notify(`${layer.error} (fix it to change settings there)`, "warning");
    }
    const index = await ctx.pick({
      title: "Settings",
      items: SETTINGS.map((setting, i) => ({
        value: i,
        label: setting.label.padEnd(LABEL_WIDTH),
        description: describe(setting, layers),
      })),
      initialIndex: at,
    });
    if (index === null) return;
    at = index;
    await edit(ctx, SETTINGS[index]!, layers);
  }
}

function readLayers(ctx: CommandContext): Promise<ConfigLayer[]> {
  return readConfigLayers(ctx.controller.pantoHome, ctx.controller.cwd, optionalEnv("HOME"));
}

/** `on · ~/.panto/config.json`: the value in effect and the file that sets it. */
function describe(setting: Setting, layers: readonly ConfigLayer[]): string {
  const value = effective(setting, layers, setting.path);
  const setters = layers.filter((layer) => valueAt(layer.data, setting.path) !== undefined);
  const where = setters.length ? setters.map((layer) => layer.shown).join(" + ") : "default";
  return `${setting.show(value)} · ${where}`;
}

/** The value at `path` the chat gets from the files. */
function effective(
  setting: Setting,
  layers: readonly ConfigLayer[],
  path: SettingChange["path"],
): unknown {
  const [user, project] = layers.map((layer) => valueAt(layer.data, path));
  if (setting.merge) return setting.merge(user, project);
  return project ?? user;
}

async function edit(
  ctx: CommandContext,
  setting: Setting,
  layers: readonly ConfigLayer[],
): Promise<void> {
  const change = await setting.choose(ctx, effective(setting, layers, setting.path));
  if (change === null) return;
  const target = await chooseFile(ctx, setting, layers, change);
  if (target === null) return;
  try {
    await writeConfigValue(target.path, target.shown, change.path, change.value);
  } catch (error) {
    return ctx.notify(`${setting.label} not saved: ${errorMessage(error)}`, "error");
  }
  const after = await readLayers(ctx);
  const saved = `${setting.label}: ${change.shown}, saved in ${target.shown}`;
  const project = after.find((layer) => layer.scope === "project");
  if (
    target.scope === "user" && !setting.merge && project &&
    valueAt(project.data, change.path) !== undefined
  ) {
    return ctx.notify(`${saved}; ${project.shown} still sets it here, so this chat keeps it`);
  }
  try {
    ctx.notify(
      `${saved}; ${setting.apply(ctx, effective(setting, after, change.path), change.path)}`,
    );
  } catch (error) {
    ctx.notify(`${saved}, but this chat could not use it: ${errorMessage(error)}`, "warning");
  }
}

/**
 * The user's file, unless the project's file sets this value too: then the
 * user chooses (the project's file is what applies in this project).
 */
async function chooseFile(
  ctx: CommandContext,
  setting: Setting,
  layers: readonly ConfigLayer[],
  change: SettingChange,
): Promise<ConfigLayer | null> {
  const [user, project] = layers;
  if (!project || valueAt(project.data, change.path) === undefined) return user!;
  return await ctx.pick({
    title: `${setting.label} is also set in ${project.shown}: save it in`,
    items: [
      { value: project, label: project.shown, description: "this project's file" },
      {
        value: user!,
        label: user!.shown,
        description: setting.merge
          ? "your file (both files' entries apply)"
          : "your file, for every project (this project's file still wins here)",
      },
    ],
  });
}
