import assert from "node:assert/strict";
import { builtinTools } from "../../../lib/tools/builtin_tools.ts";
import { call, withProject } from "./tool_fixture.ts";

/** Makes a named pipe with mkfifo; false when the system has none. */
async function makeFifo(path: string): Promise<boolean> {
  try {
    return (await new Deno.Command("mkfifo", { args: [path] }).output()).success;
  } catch {
    return false;
  }
}

const hasMkfifo = await (async () => {
  const dir = await Deno.makeTempDir();
  try {
    return await makeFifo(`${dir}/probe`);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
})();
if (!hasMkfifo) console.log("skipped: special file tests need mkfifo");

Deno.test({
  name: "file tools refuse or skip a named pipe instead of waiting on it forever",
  ignore: !hasMkfifo,
  fn: async () => {
    await withProject({ "a.txt": "needle\n" }, async (root) => {
      assert.ok(await makeFifo(`${root}/pipe`));
      const tools = new Map(builtinTools({ root }).map((tool) => [tool.decl.name, tool]));
      const uses: Record<string, Record<string, unknown>> = {
        read: { path: "pipe" },
        write: { path: "pipe", content: "x" },
        edit: { path: "pipe", oldText: "a", newText: "b" },
      };
      for (const [name, args] of Object.entries(uses)) {
        const result = await call(tools.get(name)!, args);
        assert.equal(result.isError, true, name);
        assert.match(result.text, /^pipe is not a regular file/, name);
      }
      const grep = await call(tools.get("grep")!, { pattern: "needle" });
      assert.equal(grep.text, "a.txt:1:needle");
    });
  },
});
