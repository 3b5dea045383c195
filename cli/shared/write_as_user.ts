/**
 * What writing a file as the user did: wrote it, or found one there and,
 * as asked, left it alone.
 */
export type UserFileWrite = "written" | "exists";

/**
 * Creates the missing directories, refuses a directory in the file's place,
 * keeps an existing file when asked to (`set -C`: the shell will not
 * replace a file that appeared since the check), and writes standard input.
 */
const WRITE_SCRIPT = [
  'dir=$(dirname -- "$1")',
  '[ -d "$dir" ] || mkdir -p -- "$dir" || exit 6',
  '[ -d "$1" ] && exit 4',
  'if [ "$2" = keep ]; then [ -e "$1" ] && exit 7; set -C; fi',
  'exec cat > "$1"',
].join("\n");

const REASONS: Readonly<Record<number, string>> = {
  4: "it is a directory",
  6: "its directory cannot be created",
};

/**
 * Writes a file the user named (an `/export` path outside the project)
 * with the user's own rights, through `sh` and `cat`: the sandbox confines
 * panto's code, not where the user asks it to put their own session.
 *
 * @param path The absolute path.
 * @param text What to write.
 * @param existing `keep` leaves a file that is already there; `replace` overwrites it.
 * @returns Whether it was written, or found and kept.
 * @throws {Error} Naming the path and why, when the user may not write there.
 *
 * @example
 * ```ts
 * import { writeAsUser } from "./write_as_user.ts";
 * const dir = await Deno.makeTempDir();
 * console.assert(await writeAsUser(`${dir}/a/b.txt`, "hi", "keep") === "written");
 * console.assert(await writeAsUser(`${dir}/a/b.txt`, "again", "keep") === "exists");
 * console.assert(await Deno.readTextFile(`${dir}/a/b.txt`) === "hi");
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function writeAsUser(
  path: string,
  text: string,
  existing: "keep" | "replace",
): Promise<UserFileWrite> {
  const child = new Deno.Command("sh", {
    args: ["-c", WRITE_SCRIPT, "sh", path, existing],
    stdin: "piped",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  // The script may exit before reading (a kept file): a closed pipe is its answer, not an error.
  await writer.write(new TextEncoder().encode(text)).catch(() => {});
  await writer.close().catch(() => {});
  const output = await child.output();
  if (output.success) return "written";
  if (output.code === 7) return "exists";
  const why = REASONS[output.code] ?? new TextDecoder().decode(output.stderr).trim();
  throw new Error(`could not write ${path}: ${why || `exit ${output.code}`}`);
}
