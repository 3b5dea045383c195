/**
 * Reads the clipboard as the chat does (`readClipboardImage` with its
 * default environment, after withholding the named variables as the
 * program does at start) and prints the image's media type: for a test that
 * sets keys and `PATH` in this child's environment, not in the test process
 * that parallel test files share.
 *
 * Usage: deno run … clipboard_runner.ts <withheld,names>
 */
import { readClipboardImage } from "../../../cli/chat/clipboard_image.ts";
import { withholdFromCommands } from "../../../cli/shared/env.ts";

withholdFromCommands(Deno.args[0]!.split(","));
const image = await readClipboardImage({ os: "linux" });
console.log(image.block.mediaType);
