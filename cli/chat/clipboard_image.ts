import type { ImageBlock } from "@panto/lib";
import { joinBytes } from "@panto/lib/fs";
import { optionalEnv } from "../shared/env.ts";
import { MAX_IMAGE_BYTES } from "@panto/lib/tools";
import { formatBytes } from "@panto/lib/tools";

/** How long a clipboard tool may take to answer (ms). */
const CLIPBOARD_TIMEOUT_MS = 5000;

/** Clipboard types asked for, best first: those panto sends. */
const WANTED_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/** An image read from the clipboard. */
export interface ClipboardImage {
  /** The image, ready to send. */
  block: ImageBlock;
  /** Its size in bytes. */
  bytes: number;
}

/** Options for {@linkcode readClipboardImage}. */
export interface ClipboardOptions {
  /**
   * The tools' whole environment (default: they inherit panto's, which is
   * the user's less the withheld key variables).
   */
  env?: Readonly<Record<string, string>>;
  /** The operating system (default: this one's). */
  os?: typeof Deno.build.os;
  /** How long each tool call may take (ms). */
  timeoutMs?: number;
}

/** A command-line clipboard reader. */
interface ClipboardTool {
  /** The program. */
  name: string;
  /** Arguments listing the clipboard's types, one a line; none: it offers PNG or fails. */
  listTypes?: string[];
  /** Arguments printing the clipboard as `type`. */
  read(type: string): string[];
  /** Its output as image bytes (default: as is). */
  decode?(output: Uint8Array): Uint8Array;
  /** The most output bytes for an image of {@linkcode MAX_IMAGE_BYTES}. */
  outputFactor?: number;
}

const WL_PASTE: ClipboardTool = {
  name: "wl-paste",
  listTypes: ["--list-types"],
  read: (type) => ["--no-newline", "--type", type],
};

const XCLIP: ClipboardTool = {
  name: "xclip",
  listTypes: ["-selection", "clipboard", "-t", "TARGETS", "-o"],
  read: (type) => ["-selection", "clipboard", "-t", type, "-o"],
};

/** `pbpaste` gives text only; AppleScript prints a PNG clipboard as `«data PNGf<hex>»`. */
const OSASCRIPT: ClipboardTool = {
  name: "osascript",
  read: () => ["-e", "the clipboard as «class PNGf»"],
  decode: (output) => {
    const hex = new TextDecoder().decode(output).match(/«data PNGf([0-9A-Fa-f]*)»/)?.[1] ?? "";
    return Uint8Array.fromHex(hex);
  },
  outputFactor: 2,
};

/** Why no image was read, worded for the user. */
export class ClipboardError extends Error {
  /** @param message What went wrong and what to do. */
  constructor(message: string) {
    super(message);
    this.name = "ClipboardError";
  }
}

/**
 * Reads an image from the system clipboard through the first clipboard tool
 * found: `wl-paste` under Wayland (`WAYLAND_DISPLAY`), `xclip` under X11
 * (`DISPLAY`), `osascript` on macOS. Each call is bounded in time and the
 * image in size ({@linkcode MAX_IMAGE_BYTES}); the type is sniffed from the
 * bytes.
 *
 * @param options Environment, platform and timeout.
 * @returns The image.
 * @throws {ClipboardError} Naming the missing tools, or saying the clipboard
 *   holds no image, or that the image is too large or the tool too slow.
 */
export async function readClipboardImage(options: ClipboardOptions = {}): Promise<ClipboardImage> {
  const env = options.env;
  const lookUp = env ? (name: string) => env[name] : optionalEnv;
  const tools = clipboardTools(lookUp, options.os ?? Deno.build.os);
  if (tools.length === 0) {
    throw new ClipboardError(
      "No display to read a clipboard from: neither WAYLAND_DISPLAY nor DISPLAY is set",
    );
  }
  const timeoutMs = options.timeoutMs ?? CLIPBOARD_TIMEOUT_MS;
  for (const tool of tools) {
    const bytes = await readWith(tool, env, timeoutMs);
    if (bytes === undefined) continue; // not installed
    const mediaType = sniffImageType(bytes);
    if (!mediaType) throw new ClipboardError("The clipboard holds no image (png, jpeg, gif, webp)");
    return { block: { type: "image", mediaType, data: bytes.toBase64() }, bytes: bytes.length };
  }
  throw new ClipboardError(
    `Pasting an image needs ${tools.map((t) => t.name).join(" or ")} on PATH; none was found${
      tools.some((t) => t === WL_PASTE) ? " (wl-paste comes with wl-clipboard)" : ""
    }`,
  );
}

/**
 * The media type of image bytes, by their signature.
 *
 * @example
 * ```ts
 * import { sniffImageType } from "./clipboard_image.ts";
 * console.assert(sniffImageType(new Uint8Array([0xff, 0xd8, 0xff, 0xe0])) === "image/jpeg");
 * console.assert(sniffImageType(new TextEncoder().encode("hello")) === undefined);
 * ```
 *
 * @param bytes The start of the data (12 bytes suffice).
 * @returns The media type, or `undefined` for anything but png, jpeg, gif and webp.
 */
export function sniffImageType(bytes: Uint8Array): string | undefined {
  const ascii = (from: number, to: number) => String.fromCharCode(...bytes.subarray(from, to));
  if (bytes[0] === 0x89 && ascii(1, 4) === "PNG") return "image/png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (ascii(0, 6) === "GIF87a" || ascii(0, 6) === "GIF89a") return "image/gif";
  if (ascii(0, 4) === "RIFF" && ascii(8, 12) === "WEBP") return "image/webp";
  return undefined;
}

/** The tools to try on this display, in order. */
function clipboardTools(
  env: (name: string) => string | undefined,
  os: string,
): ClipboardTool[] {
  if (os === "darwin") return [OSASCRIPT];
  const tools: ClipboardTool[] = [];
  if (env("WAYLAND_DISPLAY")) tools.push(WL_PASTE);
  if (env("DISPLAY")) tools.push(XCLIP); // also XWayland's, when wl-paste is missing
  return tools;
}

/** The clipboard's image bytes through `tool`; `undefined` when the tool is not installed. */
async function readWith(
  tool: ClipboardTool,
  env: Readonly<Record<string, string>> | undefined,
  timeoutMs: number,
): Promise<Uint8Array | undefined> {
  let type = "image/png";
  if (tool.listTypes) {
    const listed = await run(tool, tool.listTypes, env, timeoutMs, 64 * 1024);
    if (listed === undefined) return undefined;
    const offered = new TextDecoder().decode(listed).split(/\r?\n/).map((line) => line.trim());
    const found = WANTED_TYPES.find((wanted) => offered.includes(wanted));
    if (!found) return new Uint8Array();
    type = found;
  }
  const limit = MAX_IMAGE_BYTES * (tool.outputFactor ?? 1) + 1024;
  const output = await run(tool, tool.read(type), env, timeoutMs, limit);
  if (output === undefined) return undefined;
  const bytes = tool.decode ? tool.decode(output) : output;
  if (bytes.length > MAX_IMAGE_BYTES) throw tooLarge();
  return bytes;
}

/**
 * Runs the tool; its output, empty when it failed (nothing to paste), or
 * `undefined` when it is not installed.
 */
async function run(
  tool: ClipboardTool,
  args: string[],
  env: Readonly<Record<string, string>> | undefined,
  timeoutMs: number,
  maxBytes: number,
): Promise<Uint8Array | undefined> {
  const timeout = AbortSignal.timeout(timeoutMs);
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(tool.name, {
      args,
      ...(env ? { env: { ...env }, clearEnv: true } : {}),
      stdin: "null",
      stdout: "piped",
      stderr: "null",
      signal: timeout,
    }).spawn();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of child.stdout) {
    total += chunk.length;
    if (total > maxBytes) {
      child.kill();
      await child.status;
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  const status = await child.status;
  if (timeout.aborted) {
    throw new ClipboardError(`${tool.name} did not answer within ${timeoutMs / 1000} s`);
  }
  if (!status.success) return new Uint8Array();
  return joinBytes(chunks);
}

function tooLarge(): ClipboardError {
  return new ClipboardError(
    `The clipboard image is over ${
      formatBytes(MAX_IMAGE_BYTES)
    }: larger images are not attached; save it to a file and mention its path instead`,
  );
}
