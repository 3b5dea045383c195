/**
 * The `panto` program's entry point. `--version` (`-v`, `-V`) answers before
 * the rest of the program is loaded; everything else is imported on demand.
 *
 * @module
 */
import { VERSION } from "./version.ts";

if (import.meta.main) {
  if (Deno.args.length === 1 && ["--version", "-v", "-V"].includes(Deno.args[0]!)) {
    console.log(VERSION);
    Deno.exit(0);
  }
  const program = await import("./program.ts");
  let code: number;
  try {
    program.enterInvocationDirectory();
    code = await program.main(Deno.args);
  } catch (error) {
    code = program.exitCodeFor(error);
    program.writeFailure(error);
  }
  Deno.exit(code);
}
