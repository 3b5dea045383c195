// Runs discoverExtensions in a child process with restricted permissions
// (see discover_test.ts): prints the paths, or the error's class and message.
import { discoverExtensions } from "../../../cli/extensions/discover.ts";

const [pantoHome, cwd, ...extra] = Deno.args;
try {
  const paths = await discoverExtensions({
    pantoHome: pantoHome!,
    cwd: cwd!,
    extra,
    includeDefaults: true,
  });
  console.log(JSON.stringify(paths));
} catch (error) {
  console.log(`${(error as Error).name}: ${(error as Error).message}`);
}
