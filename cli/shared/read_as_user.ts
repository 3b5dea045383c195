/**
 * What reading a file as the user found: it is missing, is not a regular
 * file (a directory, pipe or device, left alone), may not be read by the
 * user, or its first bytes.
 */
export type UserFileRead =
  | { kind: "missing" }
  | { kind: "not a file" }
  | { kind: "unreadable" }
  | { kind: "file"; bytes: Uint8Array };

/**
 * Checks the file and prints at most its first bytes. `-f` follows links
 * and refuses pipes and devices before anything opens them (a named pipe
 * would block the read).
 */
const READ_SCRIPT = [
  '[ -e "$1" ] || exit 3',
  '[ -f "$1" ] || exit 4',
  '[ -r "$1" ] || exit 5',
  'exec head -c "$2" -- "$1"',
].join("\n");

const OUTCOMES: Readonly<Record<number, UserFileRead>> = {
  3: { kind: "missing" },
  4: { kind: "not a file" },
  5: { kind: "unreadable" },
};

/**
 * Reads at most `maxBytes + 1` bytes of a file the user named (an `@path`
 * outside the project) with the user's own rights, through `sh` and `head`:
 * the sandbox confines panto's code, not the files the user hands it. One
 * byte past the limit tells a file that is too large.
 *
 * @param path The absolute path.
 * @param maxBytes The most bytes wanted.
 * @returns What was found.
 * @throws {Error} When the reading process fails for another reason.
 *
 * @example
 * ```ts
 * import { readAsUser } from "./read_as_user.ts";
 * const path = await Deno.makeTempFile();
 * await Deno.writeTextFile(path, "hello");
 * const read = await readAsUser(path, 3);
 * console.assert(read.kind === "file" && new TextDecoder().decode(read.bytes) === "hell");
 * await Deno.remove(path);
 * ```
 */
export async function readAsUser(path: string, maxBytes: number): Promise<UserFileRead> {
  const output = await new Deno.Command("sh", {
    args: ["-c", READ_SCRIPT, "sh", path, String(maxBytes + 1)],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (output.success) return { kind: "file", bytes: output.stdout };
  const outcome = OUTCOMES[output.code];
  if (outcome) return outcome;
  const why = new TextDecoder().decode(output.stderr).trim();
  throw new Error(`could not read ${path}${why ? `: ${why}` : ` (exit ${output.code})`}`);
}
