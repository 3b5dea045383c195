/**
 * Fake clipboard tools for tests: executable scripts in a temp directory put
 * first (or alone) on `PATH`.
 *
 * @module
 */
import { join } from "node:path";

/** A 1×1 PNG. */
export const TINY_PNG: Uint8Array = Uint8Array.fromBase64(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
);

/**
 * A temp directory holding `name`, a shell script with `body`, and
 * `image.png` ({@linkcode TINY_PNG}) for the script to print.
 *
 * @param name The program's name (`xclip`, `wl-paste`, `osascript`).
 * @param body The script after `#!/bin/sh` (`$DIR` is the directory).
 * @returns The directory; remove it after the test.
 */
export async function fakeTool(name: string, body: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "panto-clipboard-" });
  await Deno.writeFile(join(dir, "image.png"), TINY_PNG);
  const script = join(dir, name);
  await Deno.writeTextFile(
    script,
    `#!/bin/sh\nDIR='${dir}'\nPATH="$PATH:/usr/bin:/bin"\n${body}\n`,
  );
  await Deno.chmod(script, 0o755);
  return dir;
}

/** An `xclip` offering a PNG: its targets, then the image. */
export const XCLIP_WITH_PNG =
  `case "$*" in *TARGETS*) printf 'TARGETS\\nimage/png\\n'; exit 0;; esac
exec cat "$DIR/image.png"`;
