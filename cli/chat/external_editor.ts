import { join } from "node:path";
import { errorMessage } from "../shared/error_message.ts";

/**
 * Picks the user's editor as git does — `$VISUAL`, then `$EDITOR`, taken as
 * shell words (`code --wait` works) — else the first of `editor` (Debian's
 * choice), `nano`, `vim` and `vi` on PATH. The shell reads the variables,
 * so it sees the user's environment even where panto may not read it.
 * Exit 127 with nothing run means no editor was found.
 */
const EDITOR_SCRIPT = [
  "editor=${VISUAL:-${EDITOR:-}}",
  'if [ -z "$editor" ]; then',
  "  for candidate in editor nano vim vi; do",
  '    if command -v "$candidate" >/dev/null 2>&1; then editor=$candidate; break; fi',
  "  done",
  "fi",
  '[ -n "$editor" ] || exit 127',
  'eval "$editor \\"\\$1\\""',
].join("\n");

/** Exit code of the script when neither variable is set and no editor is on PATH. */
const NO_EDITOR = 127;

/** Why editing failed; the draft is unchanged. */
export class ExternalEditorError extends Error {
  /**
   * Creates the error.
   *
   * @param message What failed and what to do.
   */
  constructor(message: string) {
    super(message);
    this.name = "ExternalEditorError";
  }
}

/** Where and how {@linkcode editExternally} runs the editor. */
export interface ExternalEditorOptions {
  /** A directory panto may write (the draft goes in a private directory below it). */
  draftsDir: string;
  /** The editor's name for messages (`$VISUAL` or `$EDITOR` when panto can read them). */
  editorName?: string | undefined;
  /** Runs the editor with the terminal handed over to it (the TUI's `runOutside`). */
  runOutside: <T>(run: () => Promise<T>) => Promise<T>;
  /** The editor's whole environment (default: it inherits panto's). */
  env?: Readonly<Record<string, string>>;
}

/**
 * Opens `text` in the user's editor and returns what they saved. The draft
 * lives in a fresh `0700` directory under `draftsDir` (panto's own home, so
 * it works under the launcher's grants) and is removed afterwards, whatever
 * happens. The editor inherits the user's environment less the withheld
 * key variables, like every command panto starts.
 *
 * @param text The draft.
 * @param options Where the draft goes, the editor's name, how to hand over the terminal.
 * @returns The edited text (one trailing newline, which editors add, removed).
 * @throws {ExternalEditorError} When the draft cannot be written, no editor
 *   is found, or the editor fails: the caller keeps the draft.
 *
 * @example
 * ```ts
 * import { editExternally } from "./external_editor.ts";
 * const draftsDir = await Deno.makeTempDir();
 * // A scripted "editor": sed edits the file in place.
 * const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", VISUAL: "sed -i s/draft/final/" };
 * const text = await editExternally("a draft", { draftsDir, env, runOutside: (run) => run() });
 * console.assert(text === "a final");
 * await Deno.remove(draftsDir, { recursive: true });
 * ```
 */
export async function editExternally(
  text: string,
  options: ExternalEditorOptions,
): Promise<string> {
  const dir = await makeDraftDir(options.draftsDir);
  const file = join(dir, "prompt.md");
  const editor = options.editorName || "the editor";
  try {
    await Deno.writeTextFile(file, text, { mode: 0o600 });
    const status = await options.runOutside(() => runEditor(file, options.env));
    if (status.code === NO_EDITOR) {
      throw new ExternalEditorError(
        options.editorName
          ? `${editor} could not be run (exit 127: not on PATH?): check VISUAL and EDITOR; your input is unchanged`
          : "No editor found: set VISUAL or EDITOR (e.g. export EDITOR=nano) and press ctrl+g again; your input is unchanged",
      );
    }
    if (!status.success) {
      throw new ExternalEditorError(
        `${editor} exited with ${
          status.signal ? `signal ${status.signal}` : `code ${status.code}`
        }: your input is unchanged`,
      );
    }
    return (await Deno.readTextFile(file)).replace(/\n$/, "");
  } catch (error) {
    if (error instanceof ExternalEditorError) throw error;
    throw new ExternalEditorError(
      `Could not edit in ${editor}: ${errorMessage(error)}; your input is unchanged`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

async function makeDraftDir(draftsDir: string): Promise<string> {
  try {
    await Deno.mkdir(draftsDir, { recursive: true, mode: 0o700 });
    return await Deno.makeTempDir({ dir: draftsDir, prefix: "edit-" });
  } catch (error) {
    throw new ExternalEditorError(
      `Could not write the draft for the editor under ${draftsDir}: ${
        errorMessage(error)
      }; your input is unchanged`,
    );
  }
}

function runEditor(
  file: string,
  env: Readonly<Record<string, string>> | undefined,
): Promise<Deno.CommandStatus> {
  return new Deno.Command("sh", {
    args: ["-c", EDITOR_SCRIPT, "sh", file],
    ...(env ? { env: { ...env }, clearEnv: true } : {}),
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
}
