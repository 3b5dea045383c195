/**
 * Copies text to the clipboard as pi does: through the platform's clipboard
 * tool (`pbcopy`, `clip`, `termux-clipboard-set`, `wl-copy`, `xclip` or
 * `xsel`), and through the terminal (OSC 52) when no tool copied it or the
 * session is remote (over SSH the tool would fill the remote machine's
 * clipboard, the terminal fills yours).
 *
 * @module
 */
import { optionalEnv } from "../shared/env.ts";
import { formatBytes } from "@panto/lib/tools";
import { ClipboardError } from "./clipboard_image.ts";

/** How long a clipboard tool may take (ms). */
const CLIPBOARD_TIMEOUT_MS = 5000;

/** The longest OSC 52 sequence written (pi's bound on its base64): terminals drop longer ones. */
export const MAX_OSC52_LENGTH = 100_000;

/** Options for {@linkcode copyText}. */
export interface CopyTextOptions {
  /** Writes to the terminal (for OSC 52). */
  writeTerminal: (bytes: string) => void;
  /** The tools' whole environment (default: they inherit panto's). */
  env?: Readonly<Record<string, string>>;
  /** The operating system (default: this one's). */
  os?: typeof Deno.build.os;
  /** How long a tool may take (ms). */
  timeoutMs?: number;
}

/** A command-line clipboard writer: the text goes to its standard input. */
interface CopyTool {
  name: string;
  args: string[];
}

/**
 * The OSC 52 sequence that asks the terminal to put `text` in the clipboard.
 *
 * @example
 * ```ts
 * import { osc52 } from "./clipboard_text.ts";
 * console.assert(osc52("hi") === "\x1b]52;c;aGk=\x07");
 * ```
 *
 * @param text The text.
 * @returns The escape sequence.
 */
export function osc52(text: string): string {
  return `\x1b]52;c;${new TextEncoder().encode(text).toBase64()}\x07`;
}

/** How {@linkcode copyText} copied. */
export interface Copied {
  /** The clipboard tool that took the text, if one did. */
  tool: string | undefined;
  /** Whether the OSC 52 sequence was written (the terminal may still ignore it). */
  terminal: boolean;
}

/**
 * Copies `text` to the clipboard (see the module's description).
 *
 * @example
 * ```ts ignore
 * import { copyText } from "./clipboard_text.ts";
 * const copied = await copyText("hello", { writeTerminal: (s) => console.log(JSON.stringify(s)) });
 * console.log(copied.tool ?? "no tool", copied.terminal ? "and OSC 52" : "");
 * ```
 *
 * @param text The text.
 * @param options Where the terminal is, the tools' environment, platform and timeout.
 * @returns The tool that copied it, and whether OSC 52 was written.
 * @throws {ClipboardError} When no tool copied it and it is too long for OSC 52.
 */
export async function copyText(text: string, options: CopyTextOptions): Promise<Copied> {
  const env = options.env;
  const lookUp = env ? (name: string) => env[name] : optionalEnv;
  const timeoutMs = options.timeoutMs ?? CLIPBOARD_TIMEOUT_MS;
  const tools = copyTools(lookUp, options.os ?? Deno.build.os);
  let tool: string | undefined;
  for (const candidate of tools) {
    if (await copyWith(candidate, text, env, timeoutMs)) {
      tool = candidate.name;
      break;
    }
  }
  const remote = ["SSH_CONNECTION", "SSH_CLIENT", "MOSH_CONNECTION"].some((name) => lookUp(name));
  if (tool !== undefined && !remote) return { tool, terminal: false };
  const sequence = osc52(text);
  const terminal = sequence.length <= MAX_OSC52_LENGTH;
  if (terminal) options.writeTerminal(sequence);
  if (tool !== undefined || terminal) return { tool, terminal };
  throw new ClipboardError(
    `${
      noToolReason(tools)
    }, and the text is too long for the terminal's clipboard (OSC 52 takes up to ${
      formatBytes(MAX_OSC52_LENGTH * 3 / 4)
    })`,
  );
}

/** Why no tool copied, for the error. */
function noToolReason(tools: readonly CopyTool[]): string {
  if (tools.length === 0) {
    return "No display to copy to: neither WAYLAND_DISPLAY nor DISPLAY is set";
  }
  return `No clipboard tool copied it (${
    tools.map((t) => t.name).join(", ")
  }: none on PATH or all failed)`;
}

/** The tools to try here, best first. */
function copyTools(env: (name: string) => string | undefined, os: string): CopyTool[] {
  if (os === "darwin") return [{ name: "pbcopy", args: [] }];
  if (os === "windows") return [{ name: "clip", args: [] }];
  const tools: CopyTool[] = [];
  if (env("TERMUX_VERSION")) tools.push({ name: "termux-clipboard-set", args: [] });
  if (env("WAYLAND_DISPLAY")) tools.push({ name: "wl-copy", args: [] });
  if (env("DISPLAY")) {
    tools.push({ name: "xclip", args: ["-selection", "clipboard"] });
    tools.push({ name: "xsel", args: ["--clipboard", "--input"] });
  }
  return tools;
}

/** Whether `tool` took the text (false when it is missing, failed or was too slow). */
async function copyWith(
  tool: CopyTool,
  text: string,
  env: Readonly<Record<string, string>> | undefined,
  timeoutMs: number,
): Promise<boolean> {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(tool.name, {
      args: tool.args,
      ...(env ? { env: { ...env }, clearEnv: true } : {}),
      stdin: "piped",
      // A tool that stays to serve the selection (xclip, wl-copy) must not hold a pipe of ours.
      stdout: "null",
      stderr: "null",
      signal: AbortSignal.timeout(timeoutMs),
    }).spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
  const writer = child.stdin.getWriter();
  // A tool that exits early (a broken display) closes its input: its exit status says so.
  await writer.write(new TextEncoder().encode(text)).catch(() => {});
  await writer.close().catch(() => {});
  return (await child.status).success;
}
