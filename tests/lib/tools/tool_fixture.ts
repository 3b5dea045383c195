import assert from "node:assert/strict";
import type { Tool } from "@panto/lib";
import { abortAfter } from "../../support/timed_abort.ts";

/** What the model would see from one call: the text parts and the error flag. */
export interface CallResult {
  text: string;
  isError: boolean;
}

/**
 * Runs a tool the way the agent does: a thrown error becomes an error result
 * carrying its message.
 */
export async function call(
  tool: Tool,
  args: Record<string, unknown>,
  signal: AbortSignal = new AbortController().signal,
): Promise<CallResult> {
  try {
    const output = await tool.execute(args, { signal, callId: "call-1" });
    const parts = Array.isArray(output) ? output : output.parts;
    const isError = Array.isArray(output) ? false : output.isError ?? false;
    return {
      text: parts.map((p) => (p.type === "text" ? p.text : `[image ${p.mediaType}]`)).join(""),
      isError,
    };
  } catch (error) {
    return { text: (error as Error).message, isError: true };
  }
}

/**
 * Creates a temporary project with the given files (paths relative to it,
 * parents created), runs `fn` with its real path, and removes it.
 */
export async function withProject(
  files: Record<string, string | Uint8Array>,
  fn: (root: string) => Promise<void>,
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "panto_tools_" }));
  try {
    for (const [path, content] of Object.entries(files)) {
      const full = `${root}/${path}`;
      await Deno.mkdir(full.slice(0, full.lastIndexOf("/")), { recursive: true });
      if (typeof content === "string") await Deno.writeTextFile(full, content);
      else await Deno.writeFile(full, content);
    }
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/**
 * Calls a tool and aborts the call at once: it must end within a second,
 * with the abort's reason as its error.
 */
export async function assertAbortStopsCall(
  tool: Tool,
  args: Record<string, unknown>,
): Promise<void> {
  const abort = abortAfter(0, new Error("stopped by the user"));
  const result = await call(tool, args, abort.signal);
  const late = performance.now() - abort.firedAt();
  console.log(`stopped ${late.toFixed(0)} ms after the abort`);
  // A tool that ignored the abort would finish its walk with an answer, not this error; the time
  // is a deadline generous enough for a saturated machine, the figure above the one to read.
  assert.deepEqual(result, { text: "stopped by the user", isError: true });
  assert.ok(late < 15_000, `stopped ${late} ms after the abort`);
}
