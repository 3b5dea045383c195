/**
 * How the launcher gives the program its API keys without putting them in
 * the program's environment. Linux shows a process's initial environment in
 * `/proc/<pid>/environ` to every process of the same user, and removing a
 * variable later does not change it, so a key there is one `cat
 * /proc/$PPID/environ` away from the bash tool. Instead, the launcher
 * starts the program without the withheld variables and with
 * {@linkcode HANDOFF_VARIABLE} = `port:token`, listens on loopback, and
 * answers the one connection that presents the token with the values; then
 * it stops listening. A token read later from the program's environment
 * opens nothing.
 *
 * @module
 */
import { joinBytes } from "@panto/lib/fs";

/** The variable naming where the program collects its withheld variables: `port:token`. */
export const HANDOFF_VARIABLE = "PANTO_KEY_HANDOFF";

/** The largest answer the program accepts (the values of a few dozen variables). */
const MAX_ANSWER_BYTES = 1024 * 1024;

/** The launcher's side: the program's environment, and the offer to close when the program ends. */
export interface KeyOffer {
  /** The program's whole environment: the launcher's less the withheld variables, plus the handoff's address. */
  env: Record<string, string>;
  /** Stops listening (whether or not the program came). */
  close(): void;
}

/**
 * Takes the named variables out of `env` and offers their values on a
 * loopback port to the one client that presents a fresh random token.
 * Returns `undefined` when none of them is set (nothing to hand over).
 *
 * @param env The launcher's whole environment.
 * @param names The variables to withhold from the program's environment.
 * @returns The program's environment and the offer, or `undefined`.
 *
 * @example
 * ```ts
 * import { collectKeys, offerKeys } from "./key_handoff.ts";
 * const offer = offerKeys({ PATH: "/bin", SECRET_KEY: "s3cret" }, ["SECRET_KEY"]);
 * console.assert(offer !== undefined && !("SECRET_KEY" in offer.env));
 * const keys = await collectKeys(offer!.env.PANTO_KEY_HANDOFF!);
 * console.assert(keys.SECRET_KEY === "s3cret");
 * offer!.close();
 * ```
 */
export function offerKeys(
  env: Readonly<Record<string, string>>,
  names: readonly string[],
): KeyOffer | undefined {
  const withheld = new Set(names);
  const values: Record<string, string> = {};
  const rest: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (withheld.has(name)) values[name] = value;
    else if (name !== HANDOFF_VARIABLE) rest[name] = value;
  }
  if (Object.keys(values).length === 0) return undefined;
  const token = randomToken();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  void serve(listener, token, new TextEncoder().encode(JSON.stringify(values)));
  return {
    env: { ...rest, [HANDOFF_VARIABLE]: `${listener.addr.port}:${token}` },
    close: () => closeQuietly(listener),
  };
}

/** Answers the first connection that sends the token, then stops listening. */
async function serve(listener: Deno.Listener, token: string, answer: Uint8Array): Promise<void> {
  try {
    for await (const conn of listener) {
      const presented = await readLine(conn, token.length + 1);
      if (presented === token) {
        await writeAll(conn, answer).catch(() => {});
        closeQuietly(conn);
        break;
      }
      // Not the program (a guess): keep waiting for the one that knows the token.
      closeQuietly(conn);
    }
  } catch {
    // Closed when the program ended without collecting.
  } finally {
    closeQuietly(listener);
  }
}

/**
 * The program's side: collects the withheld variables the launcher offers
 * at `address` (`port:token`, the value of {@linkcode HANDOFF_VARIABLE}).
 *
 * @param address Where and with which token.
 * @returns The variables' values, by name.
 * @throws {Error} When the launcher cannot be reached or answers nonsense.
 *
 * @example
 * ```ts ignore
 * import { collectKeys, HANDOFF_VARIABLE } from "./key_handoff.ts";
 * const keys = await collectKeys(Deno.env.get(HANDOFF_VARIABLE)!);
 * ```
 */
export async function collectKeys(address: string): Promise<Record<string, string>> {
  const match = /^(\d+):([0-9a-f]{64})$/.exec(address);
  if (!match) throw new Error(`${HANDOFF_VARIABLE} is not port:token`);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(match[1]) });
  try {
    await writeAll(conn, new TextEncoder().encode(`${match[2]}\n`));
    const bytes = await readAll(conn, MAX_ANSWER_BYTES);
    const values = JSON.parse(new TextDecoder().decode(bytes)) as unknown;
    if (!isStringRecord(values)) throw new Error("the launcher's answer is not a set of variables");
    return values;
  } finally {
    closeQuietly(conn);
  }
}

function randomToken(): string {
  return Array.from(
    crypto.getRandomValues(new Uint8Array(32)),
    (byte) => byte.toString(16).padStart(2, "0"),
  ).join("");
}

/** Up to `max` bytes, to the first newline (without it). */
async function readLine(conn: Deno.Conn, max: number): Promise<string> {
  const buffer = new Uint8Array(max);
  let length = 0;
  while (length < max) {
    const read = await conn.read(buffer.subarray(length));
    if (read === null) break;
    length += read;
    const newline = buffer.subarray(0, length).indexOf(10);
    if (newline >= 0) return new TextDecoder().decode(buffer.subarray(0, newline));
  }
  return "";
}

async function readAll(conn: Deno.Conn, max: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  const buffer = new Uint8Array(64 * 1024);
  for (let read = await conn.read(buffer); read !== null; read = await conn.read(buffer)) {
    length += read;
    if (length > max) throw new Error(`the launcher's answer is over ${max} bytes`);
    chunks.push(buffer.slice(0, read));
  }
  return joinBytes(chunks);
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length;) at += await conn.write(bytes.subarray(at));
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    Object.values(value).every((item) => typeof item === "string");
}

function closeQuietly(closer: { close(): void }): void {
  try {
    closer.close();
  } catch {
    // Already closed.
  }
}
