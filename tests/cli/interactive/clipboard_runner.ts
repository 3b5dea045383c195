/**
 * Reads the clipboard as the chat does (`readClipboardImage` with
 * `hiddenEnv`, the environment left to its default) and prints the image's
 * media type: for a test that sets keys and `PATH` in this child's
 * environment, not in the test process that parallel test files share.
 *
 * Usage: deno run … clipboard_runner.ts <hidden,names>
 */
import { readClipboardImage } from "../../../cli/interactive/clipboard_image.ts";

const image = await readClipboardImage({ hiddenEnv: Deno.args[0]!.split(","), os: "linux" });
console.log(image.block.mediaType);
