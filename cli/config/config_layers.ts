import { join } from "node:path";
import { errorMessage } from "../shared/error_message.ts";
import { parseJsonc } from "./jsonc.ts";
import { readRegularTextFile } from "./read_regular_file.ts";
import type { ConfigPath } from "./write_config_value.ts";

/** One config file as `/settings` sees it: where it is and what it holds. */
export interface ConfigLayer {
  /** `user` (`$PANTO_HOME/config.json`) or `project` (`.panto/config.json`). */
  scope: "user" | "project";
  /** The file. */
  path: string;
  /** The path as shown (`~/.panto/config.json`). */
  shown: string;
  /** Its parsed contents (`{}` when missing or broken). */
  data: Record<string, unknown>;
  /** Why it could not be read, when it could not. */
  error?: string;
}

/**
 * Reads the user's and the project's config files, as they are on disk now
 * (comments and all; nothing is validated).
 *
 * @param pantoHome panto's home directory.
 * @param cwd The working directory.
 * @param home `HOME`, for `~` in the shown paths.
 * @returns The user's layer, then the project's (absent when both are the same file).
 *
 * @example
 * ```ts
 * import { readConfigLayers } from "./config_layers.ts";
 * const dir = await Deno.makeTempDir();
 * await Deno.writeTextFile(`${dir}/config.json`, '{ "theme": "light" } // mine');
 * const [user] = await readConfigLayers(dir, `${dir}/project`, undefined);
 * console.assert(user?.data.theme === "light");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function readConfigLayers(
  pantoHome: string,
  cwd: string,
  home: string | undefined,
): Promise<ConfigLayer[]> {
  const user = join(pantoHome, "config.json");
  const project = join(cwd, ".panto", "config.json");
  const layers = [await readLayer("user", user, home)];
  if (project !== user) layers.push(await readLayer("project", project, home));
  return layers;
}

async function readLayer(
  scope: ConfigLayer["scope"],
  path: string,
  home: string | undefined,
): Promise<ConfigLayer> {
  const layer: ConfigLayer = { scope, path, shown: shownPath(path, home), data: {} };
  try {
    const data = await parseJsonc(await readRegularTextFile(path) ?? "{}");
    if (isRecord(data)) layer.data = data;
  } catch (error) {
    layer.error = `${layer.shown}: ${errorMessage(error)}`;
  }
  return layer;
}

/**
 * The value at `path` in a parsed config file.
 *
 * @param data The file's contents.
 * @param path The key's path.
 * @returns The value, or `undefined` when not set.
 *
 * @example
 * ```ts
 * import { valueAt } from "./config_layers.ts";
 * console.assert(valueAt({ compaction: { enabled: false } }, ["compaction", "enabled"]) === false);
 * console.assert(valueAt({}, ["compaction", "enabled"]) === undefined);
 * ```
 */
export function valueAt(data: unknown, path: ConfigPath): unknown {
  let value = data;
  for (const key of path) {
    if (!isRecord(value) || !Object.hasOwn(value, key)) return undefined;
    value = value[key];
  }
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A path under the home directory as `~/…`, as config messages show it.
 *
 * @param path An absolute path.
 * @param home `HOME`.
 * @returns The path to show.
 *
 * @example
 * ```ts
 * import { shownPath } from "./config_layers.ts";
 * console.assert(shownPath("/home/ada/.panto/config.json", "/home/ada") === "~/.panto/config.json");
 * ```
 */
export function shownPath(path: string, home: string | undefined): string {
  const base = home?.replace(/\/+$/, "");
  return base && path.startsWith(`${base}/`) ? `~${path.slice(base.length)}` : path;
}
