/**
 * A permission panto lacks is a message that says what to do, never Deno's
 * raw "Requires … access" text: checked against the errors Deno really
 * throws, in a child process with no permissions.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { envPermissionMessage, permissionMessage } from "../../../cli/shared/permission_message.ts";

const ERROR_MESSAGE = new URL("../../../cli/shared/error_message.ts", import.meta.url).href;
const CONFIG = new URL("../../../deno.json", import.meta.url).pathname;

/** What `errorMessage` says about the error `attempt` (a statement) throws without permissions. */
async function messageWithoutPermission(attempt: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "panto-permission-" });
  try {
    const script = join(dir, "attempt.ts");
    await Deno.writeTextFile(
      script,
      `import { errorMessage } from ${JSON.stringify(ERROR_MESSAGE)};\n` +
        `try { ${attempt} } catch (error) { console.log(errorMessage(error)); }\n`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--quiet", "--no-prompt", "--config", CONFIG, script],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    return new TextDecoder().decode(out.stdout).trim();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a denied write (such as /export /tmp/x.md) names the path and the fix", async () => {
  const text = await messageWithoutPermission(
    'await Deno.writeTextFile("/tmp/panto-denied/x.md", "x");',
  );
  assert.match(text, /^panto may not write \/tmp\/panto-denied\/x\.md: /);
  assert.match(text, /tools\.allowedPaths/);
  assert.doesNotMatch(text, /Requires|run again/, "not Deno's own words");
});

Deno.test("a denied read names the path; a denied variable names the config setting", async () => {
  const read = await messageWithoutPermission('await Deno.readTextFile("/etc/hostname");');
  assert.match(read, /^panto may not read \/etc\/hostname: /);
  const env = await messageWithoutPermission('Deno.env.get("TOGETHER_API_KEY");');
  assert.equal(env, envPermissionMessage("TOGETHER_API_KEY"));
  assert.match(env, /"apiKeyEnv": "TOGETHER_API_KEY"/);
});

Deno.test("a permission of another kind points at the panto command", () => {
  const text = permissionMessage(
    'Requires ffi access to "lib.so", run again with the --allow-ffi flag',
  );
  assert.match(text, /^panto lacks a permission \(Requires ffi access/);
  assert.match(text, /the `panto` command/);
});

Deno.test("permission message: a path with a comma is not given advice that cannot work", () => {
  const text = permissionMessage(
    'Requires read access to "/home/ada/a,b/x.md", run again with the --allow-read flag',
  );
  assert.match(text, /no setting can grant a path with a comma/);
  assert.doesNotMatch(text, /allowedPaths/);
});
