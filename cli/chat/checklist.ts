import type { SelectItem } from "@panto/tui";
import type { PickerOptions } from "./picker.ts";

/** Shows a picker; resolves with the choice or `null` on escape (the chat's `pick`). */
export type Pick = <T>(options: Omit<PickerOptions<T>, "replace">) => Promise<T | null>;

/** The first row: enter on it keeps the ticked entries. */
const DONE = Symbol("done");

/**
 * Lets the user tick any of `options` in a picker: enter on an entry ticks
 * or unticks it, enter on the first row ("Done") keeps the ticked ones in
 * the order they were ticked (those ticked before first, in their order),
 * esc keeps nothing.
 *
 * @param pick Shows one picker.
 * @param title The picker's title.
 * @param options The entries to choose from.
 * @param ticked The entries ticked at first.
 * @returns The ticked entries, or `null` on esc.
 *
 * @example
 * ```ts ignore
 * const tools = await pickMany(ctx.pick.bind(ctx), "Ask before", ["bash", "write"], ["bash"]);
 * ```
 */
export async function pickMany(
  pick: Pick,
  title: string,
  options: readonly string[],
  ticked: readonly string[],
): Promise<string[] | null> {
  const chosen = [...ticked];
  let at = 0;
  while (true) {
    const items: SelectItem<string | typeof DONE>[] = [
      { value: DONE, label: "Done", description: `keep ${chosen.length} ticked` },
      ...[...new Set([...ticked, ...options])].map((value) => ({
        value,
        label: `${chosen.includes(value) ? "[x]" : "[ ]"} ${value}`,
      })),
    ];
    const choice = await pick({ title, items, initialIndex: at });
    if (choice === null) return null;
    if (choice === DONE) return chosen;
    at = items.findIndex((item) => item.value === choice);
    const index = chosen.indexOf(choice);
    if (index < 0) chosen.push(choice);
    else chosen.splice(index, 1);
  }
}
