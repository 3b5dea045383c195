/**
 * One long-lived stdin reader, hiding `Deno.stdin.readable`.
 *
 * @module
 */

/**
 * Reads stdin until `stop` is called, decoding UTF-8 across chunk
 * boundaries and passing each decoded chunk to `onData`. Returns `stop`,
 * which cancels the reader so the process can exit. Deno's stdin stream
 * cannot be read again after that, so read once per process. `beforeRead`
 * is awaited before each read, to pause reading.
 *
 * @example
 * ```ts ignore
 * import { readStdin } from "./stdin.ts";
 * const stop = readStdin((text) => console.log(JSON.stringify(text)));
 * await stop();
 * ```
 */
export function readStdin(
  onData: (text: string) => void,
  beforeRead?: () => Promise<void>,
): () => Promise<void> {
  const reader = Deno.stdin.readable.getReader();
  const decoder = new TextDecoder();
  let stopped = false;
  const loop = (async () => {
    try {
      while (!stopped) {
        // Paused while another program reads the terminal: no read may be pending then.
        await beforeRead?.();
        if (stopped) break;
        const { value, done } = await reader.read();
        if (done) break;
        const text = decoder.decode(value, { stream: true });
        if (text !== "") onData(text);
      }
    } catch (error) {
      if (!stopped) throw error;
    }
  })();
  return async () => {
    if (stopped) return;
    stopped = true;
    await reader.cancel();
    reader.releaseLock();
    await loop;
  };
}
