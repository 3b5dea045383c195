/** Characters both wire protocols accept in a tool name. */
const UNSAFE = /[^A-Za-z0-9_-]/g;
/** The longest name sent as it is (the wire limit of both APIs). */
const MAX_NAME = 64;

/**
 * The name a server's tool is registered under: `server__tool`, with
 * characters the model APIs refuse replaced by `_`. A name over 64
 * characters keeps its start and ends in a hash of the whole, so two long
 * names stay apart and the same tool always gets the same name.
 *
 * @param server The server's name in the config.
 * @param tool The tool's name on the server.
 * @returns The registered name.
 *
 * @example
 * ```ts
 * import { mcpToolName } from "./mcp_tool_name.ts";
 * console.assert(mcpToolName("git", "log") === "git__log");
 * console.assert(mcpToolName("docs", "search.v2") === "docs__search_v2");
 * console.assert(mcpToolName("s", "x".repeat(100)).length === 64);
 * ```
 */
export function mcpToolName(server: string, tool: string): string {
  const name = `${server}__${tool}`.replace(UNSAFE, "_");
  return name.length <= MAX_NAME ? name : withHash(name, `${server}\0${tool}`);
}

/**
 * The registered names of all of a server's tools, in order, distinct for
 * distinct tool names. A
 * tool whose name is registered as it is keeps it; the others whose encoded
 * names collide (`a.b` and `a b` both encode to `server__a_b`, which a tool
 * `a_b` may also have) end in a hash of their own name instead, so each name
 * stays the same whatever else the server lists, and the model can call each
 * tool (before, one silently took the others' place).
 *
 * @param server The server's name in the config.
 * @param tools The tools' names on the server.
 * @returns Their registered names, in the same order.
 *
 * @example
 * ```ts
 * import { mcpToolNames } from "./mcp_tool_name.ts";
 * const [plain, dotted, spaced] = mcpToolNames("s", ["a_b", "a.b", "a b"]);
 * console.assert(plain === "s__a_b" && dotted !== spaced);
 * console.assert(dotted!.startsWith("s__a_b_") && spaced!.startsWith("s__a_b_"));
 * ```
 */
export function mcpToolNames(server: string, tools: readonly string[]): string[] {
  const encoded = tools.map((tool) => mcpToolName(server, tool));
  const users = new Map<string, number>();
  for (const name of encoded) users.set(name, (users.get(name) ?? 0) + 1);
  const keeps = (name: string, i: number) =>
    users.get(name) === 1 || isExact(server, tools[i]!, name);
  const taken = new Set(encoded.filter(keeps));
  return encoded.map((name, i) => {
    const tool = tools[i]!;
    if (keeps(name, i)) return name;
    // Salted again in the unlikely case that the hashed name is some tool's own.
    for (let salt = 0;; salt++) {
      const hashed = withHash(name, `${server}\0${tool}${salt === 0 ? "" : `\0${salt}`}`);
      if (!taken.has(hashed)) {
        taken.add(hashed);
        return hashed;
      }
    }
  });
}

/** Whether `name` is `server__tool` unchanged (nothing replaced, nothing cut). */
function isExact(server: string, tool: string, name: string): boolean {
  return name === `${server}__${tool}`;
}

/** `name`, cut to leave room, then `_` and an 8-digit hash of `key`. */
function withHash(name: string, key: string): string {
  const hash = fnv1a(key).toString(16).padStart(8, "0");
  return `${name.slice(0, MAX_NAME - 9)}_${hash}`;
}

/** 32-bit FNV-1a: short, stable, and enough to keep long names apart. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (const char of text) {
    hash ^= char.codePointAt(0)!;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
