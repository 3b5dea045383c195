import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { childEnv } from "../../support/child_env.ts";

Deno.test("a request Deno's permissions deny fails at once as `permission`, naming the fix", async () => {
  const home = await Deno.makeTempDir();
  try {
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-prompt",
        "--allow-read",
        "--allow-env",
        fileURLToPath(new URL("./permission_child.ts", import.meta.url)),
      ],
      env: childEnv(home),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    });
    const { code, stdout, stderr } = await child.output();
    const text = new TextDecoder().decode(stdout);
    assert.equal(code, 0, new TextDecoder().decode(stderr));
    const outcome = JSON.parse(text);
    assert.equal(outcome.retries, 0, "a denial is not retried as a network error");
    assert.equal(outcome.error.kind, "permission");
    assert.match(outcome.error.message, /Deno denied the request to 127\.0\.0\.1:47123/);
    assert.match(outcome.error.message, /--allow-net=127\.0\.0\.1:47123/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
