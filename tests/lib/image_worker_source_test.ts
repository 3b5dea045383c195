/**
 * `lib/image_worker_source.ts` is generated from `lib/image_worker.ts` and
 * the codecs: it must be what building them gives now.
 */
import assert from "node:assert/strict";
import { IMAGE_WORKER_SOURCE } from "../../lib/image_worker_source.ts";
import { buildImageWorkerSource } from "../support/image_worker_build.ts";

Deno.test("lib/image_worker_source.ts is up to date with lib/image_worker.ts", async () => {
  const built = await buildImageWorkerSource();
  assert.ok(
    built === IMAGE_WORKER_SOURCE,
    "lib/image_worker_source.ts is stale (or was built by another Deno than " +
      `${Deno.version.deno}): run \`deno run -A tests/support/image_worker_build.ts\``,
  );
});
