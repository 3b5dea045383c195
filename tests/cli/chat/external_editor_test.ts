import assert from "node:assert/strict";
import { join } from "node:path";
import { editExternally, ExternalEditorError } from "../../../cli/chat/external_editor.ts";

const PATH = Deno.env.get("PATH") ?? "/usr/bin:/bin";
const runHere = <T>(run: () => Promise<T>) => run();

/** A directory of executable scripts, by name, to put on a test's PATH. */
async function withScripts(
  scripts: Record<string, string>,
  fn: (bin: string, draftsDir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "panto-editor-" });
  try {
    const bin = join(dir, "bin");
    await Deno.mkdir(bin);
    for (const [name, body] of Object.entries(scripts)) {
      await Deno.writeTextFile(join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    }
    await fn(bin, join(dir, "drafts"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("editor: $VISUAL wins over $EDITOR, is taken as shell words, and the draft directory is removed", async () => {
  await withScripts({}, async (_bin, draftsDir) => {
    const env = { PATH, VISUAL: "sed -i -e s/draft/visual/", EDITOR: "sed -i -e s/draft/editor/" };
    const text = await editExternally("a draft\n", { draftsDir, env, runOutside: runHere });
    assert.equal(text, "a visual");
    assert.deepEqual(await Array.fromAsync(Deno.readDir(draftsDir)), []);
  });
});

Deno.test("editor: $EDITOR when $VISUAL is unset; the draft file is private", async () => {
  await withScripts({
    "my-editor": 'stat -c %a "$1" > "$(dirname "$1")/../mode"; echo edited > "$1"',
  }, async (bin, draftsDir) => {
    const env = { PATH: `${bin}:${PATH}`, EDITOR: "my-editor" };
    assert.equal(await editExternally("x", { draftsDir, env, runOutside: runHere }), "edited");
    const mode = await Deno.readTextFile(join(draftsDir, "mode"));
    assert.equal(mode.trim(), "600");
  });
});

Deno.test("editor: with neither variable set, the first of editor, nano, vim, vi on PATH", async () => {
  await withScripts({
    nano: 'echo "by nano" > "$1"',
    vi: 'echo "by vi" > "$1"',
    sh: 'exec /bin/sh "$@"',
  }, async (bin, draftsDir) => {
    // PATH holds only the fake editors and a shell: the real ones must not be found.
    const text = await editExternally("x", { draftsDir, env: { PATH: bin }, runOutside: runHere });
    assert.equal(text, "by nano");
  });
});

Deno.test("editor: no editor anywhere is a message saying what to set; the draft is unchanged", async () => {
  await withScripts({ sh: 'exec /bin/sh "$@"' }, async (bin, draftsDir) => {
    await assert.rejects(
      editExternally("keep me", { draftsDir, env: { PATH: bin }, runOutside: runHere }),
      (error: Error) =>
        error instanceof ExternalEditorError && /No editor found: set VISUAL or EDITOR/.test(
          error.message,
        ),
    );
    assert.deepEqual(await Array.fromAsync(Deno.readDir(draftsDir)), []);
  });
});

Deno.test("editor: a missing or failing editor names it and the exit", async () => {
  await withScripts({}, async (_bin, draftsDir) => {
    await assert.rejects(
      editExternally("x", {
        draftsDir,
        editorName: "no-such-editor-xyz",
        env: { PATH, VISUAL: "no-such-editor-xyz" },
        runOutside: runHere,
      }),
      /no-such-editor-xyz could not be run \(exit 127/,
    );
    await assert.rejects(
      editExternally("x", {
        draftsDir,
        editorName: "false",
        env: { PATH, VISUAL: "false" },
        runOutside: runHere,
      }),
      /false exited with code 1: your input is unchanged/,
    );
  });
});

Deno.test("editor: a drafts directory that cannot be made is a message naming it", async () => {
  await withScripts({}, async (_bin, draftsDir) => {
    await Deno.writeTextFile(draftsDir, "a file where the directory should be");
    await assert.rejects(
      editExternally("x", { draftsDir, env: { PATH, VISUAL: "true" }, runOutside: runHere }),
      (error: Error) =>
        error instanceof ExternalEditorError &&
        error.message.includes(`Could not write the draft for the editor under ${draftsDir}`),
    );
  });
});
