/**
 * Garbage collected once the chat goes idle after a burst of work. Drawing
 * a resumed session or streaming a long answer leaves tens of megabytes of
 * garbage in V8's old generation, and nothing collects it while the chat
 * waits for the user: V8's memory reducer took 20 s or more to shrink the
 * heap (a 10,000-message session: 256 MiB resident until then, 145 MiB
 * after). One full collection, a moment after the burst, returns that
 * memory at once, while the user reads. It costs about 50–150 ms of CPU on
 * 2 busy cores, so it runs only when the resident memory grew by
 * {@linkcode WORTH_COLLECTING} since the last one: after a long answer, not
 * after every short turn. It needs the `gc` function V8 exposes with
 * `--expose-gc`, which the launcher gives the chat
 * (`cli/launcher/launch.ts`); without it, nothing happens.
 *
 * @module
 */

/** How long after the burst: frames and the session's last write go first. */
const DELAY_MS = 300;
/**
 * Growth of the resident memory since the last collection that is worth one
 * (bytes). At 8 MiB an answer of a few hundred lines often stayed under it
 * and kept 3–5 MiB more resident; at 4 the collection runs after those too,
 * for 50–100 ms of CPU each (docs/benchmarks.md, stream shapes).
 */
const WORTH_COLLECTING = 4 * 1024 * 1024;

type GcFunction = (options?: { type: string; execution: string; flavor: string }) => void;

let pending: ReturnType<typeof setTimeout> | undefined;
/** Resident memory after the last collection. */
let collectedAt = 0;

/**
 * Collects garbage {@linkcode DELAY_MS} from now (a later call moves it),
 * shrinking the heap as far as V8 can (its "last resort" collection), if the
 * resident memory grew by {@linkcode WORTH_COLLECTING} since the last time.
 *
 * @param residentBytes The process's resident memory now (tests give their own: the process's
 *   figure also moves with whatever else runs in it).
 */
export function collectGarbageSoon(
  residentBytes: () => number = () => Deno.memoryUsage().rss,
): void {
  const gc = (globalThis as { gc?: GcFunction }).gc;
  if (typeof gc !== "function") return;
  if (residentBytes() - collectedAt < WORTH_COLLECTING) return;
  if (pending !== undefined) clearTimeout(pending);
  const timer = setTimeout(() => {
    pending = undefined;
    gc({ type: "major", execution: "sync", flavor: "last-resort" });
    collectedAt = residentBytes();
  }, DELAY_MS);
  // Never keeps the process alive on its way out.
  Deno.unrefTimer(timer);
  pending = timer;
}
