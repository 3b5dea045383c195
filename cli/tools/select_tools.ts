import type { Tool } from "@panto/lib";
import { didYouMean } from "../shared/did_you_mean.ts";
import { UsageError } from "../shared/errors.ts";

/**
 * The tools named by `--tools a,b,c` (in the given order), none for
 * `--no-tools`, or all of them when no selection was made.
 *
 * @param all The available tools.
 * @param names Tool names, `"none"`, or `undefined` for all.
 * @returns The selected tools.
 * @throws {UsageError} For an unknown name, listing the valid ones.
 *
 * @example
 * ```ts
 * import { builtinTools } from "@panto/lib/tools";
 * import { selectTools } from "./select_tools.ts";
 * const all = builtinTools({ root: "/tmp" });
 * console.assert(selectTools(all, ["read", "grep"]).length === 2);
 * console.assert(selectTools(all, "none").length === 0);
 * ```
 */
export function selectTools(
  all: readonly Tool[],
  names: readonly string[] | "none" | undefined,
): Tool[] {
  if (names === undefined) return [...all];
  if (names === "none") return [];
  const byName = new Map(all.map((tool) => [tool.decl.name, tool]));
  const selected = new Set<Tool>();
  for (const name of names.map((n) => n.trim()).filter(Boolean)) {
    const tool = byName.get(name);
    if (!tool) {
      const guess = didYouMean(name, byName.keys());
      throw new UsageError(
        `Unknown tool ${JSON.stringify(name)}${
          guess ? ` (did you mean "${guess}"?)` : ""
        }: valid tools are ${[...byName.keys()].join(", ")}`,
      );
    }
    selected.add(tool);
  }
  return [...selected];
}
