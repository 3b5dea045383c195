import { dirname, join, relative, resolve } from "node:path";
import type {
  AutocompleteItem,
  AutocompleteProvider,
  AutocompleteRequest,
  AutocompleteSuggestions,
} from "@panto/tui";

const MAX_FILES = 50;
const SKIPPED = new Set([".git", "node_modules"]);

/** Completes `/commands` at the start of the input and `@paths` anywhere. */
export class ChatAutocomplete implements AutocompleteProvider {
  readonly #cwd: string;
  readonly #commands: () => { name: string; description: string }[];

  /**
   * @param cwd Paths are completed relative to it.
   * @param commands The slash commands available now.
   */
  constructor(cwd: string, commands: () => { name: string; description: string }[]) {
    this.#cwd = cwd;
    this.#commands = commands;
  }

  /** Suggestions for the word at the cursor. */
  suggest(request: AutocompleteRequest): AutocompleteSuggestions | null {
    const before = request.text.slice(0, request.cursor);
    // `:` for skills' commands (`/skill:name`).
    const command = before.match(/^\/([\w:-]*)$/);
    if (command) return this.#commandSuggestions(command[1]!);
    const mention = before.match(/(?:^|\s)@([^\s]*)$/);
    if (mention) return this.#pathSuggestions(mention[1]!, request.cursor - mention[1]!.length);
    return null;
  }

  #commandSuggestions(prefix: string): AutocompleteSuggestions | null {
    const commands = this.#commands();
    // A complete command name needs no list: enter runs it.
    if (commands.some((c) => c.name === prefix.toLowerCase())) return null;
    const items: AutocompleteItem[] = commands
      .filter((c) => c.name.startsWith(prefix.toLowerCase()))
      .map((c) => ({ value: `${c.name} `, label: `/${c.name}`, description: c.description }));
    return items.length ? { items, from: 1 } : null;
  }

  #pathSuggestions(partial: string, from: number): AutocompleteSuggestions | null {
    const dirPart = partial.endsWith("/")
      ? partial
      : dirname(partial) === "." && !partial.startsWith("./")
      ? ""
      : `${dirname(partial)}/`;
    const namePrefix = partial.slice(dirPart.length);
    const dir = resolve(this.#cwd, dirPart || ".");
    if (relative(this.#cwd, dir).startsWith("..")) return null;
    // A fully typed file name needs no list: enter sends the prompt.
    if (namePrefix !== "" && isFile(join(dir, namePrefix))) return null;
    const items: AutocompleteItem[] = [];
    try {
      for (const entry of Deno.readDirSync(dir)) {
        if (SKIPPED.has(entry.name) || !entry.name.startsWith(namePrefix)) continue;
        if (namePrefix === "" && entry.name.startsWith(".")) continue;
        const value = join(dirPart, entry.name) + (entry.isDirectory ? "/" : "");
        items.push({ value: entry.isDirectory ? value : `${value} `, label: value });
        if (items.length >= MAX_FILES) break;
      }
    } catch {
      return null;
    }
    items.sort((a, b) => (a.label ?? a.value).localeCompare(b.label ?? b.value));
    return items.length ? { items, from } : null;
  }
}

function isFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}
