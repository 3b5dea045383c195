/**
 * `deno task` installs every npm package of the root lockfile before it runs
 * a task, so whatever the tests or benches resolve through it is downloaded on
 * panto's first start too. These tests keep that set free of packages with
 * build scripts (Deno warns about each on that first start) and of the
 * benches' peers, which belong in `bench/bench.lock`.
 */
import assert from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);

async function lockPackages(path: string): Promise<Record<string, { scripts?: boolean }>> {
  const lock = JSON.parse(await Deno.readTextFile(new URL(path, ROOT)));
  return lock.npm ?? {};
}

Deno.test("the root lockfile holds no npm package with build scripts", async () => {
  const withScripts = Object.entries(await lockPackages("deno.lock"))
    .filter(([, entry]) => entry.scripts === true)
    .map(([name]) => name);
  assert.deepEqual(
    withScripts,
    [],
    "run the benches with --lock=bench/bench.lock (deno task bench / deno task check)",
  );
});

Deno.test("pi's packages are pinned in the bench lockfile, not the root one", async () => {
  const isPi = (name: string) => name.startsWith("@mariozechner/");
  assert.deepEqual(Object.keys(await lockPackages("deno.lock")).filter(isPi), []);
  const benchPi = Object.keys(await lockPackages("bench/bench.lock")).filter(isPi);
  assert.ok(benchPi.length > 0, "bench/bench.lock must pin pi's packages");
});
