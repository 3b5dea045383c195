import assert from "node:assert/strict";
import { collectKeys, HANDOFF_VARIABLE, offerKeys } from "../../../cli/launcher/key_handoff.ts";

Deno.test("key handoff: a wrong token gets nothing, the right one gets the values once, then nobody", async () => {
  const offer = offerKeys({ PATH: "/bin", K1: "v1", K2: "v2" }, ["K1", "K2", "UNSET"]);
  assert.ok(offer);
  try {
    assert.deepEqual(Object.keys(offer.env).sort(), [HANDOFF_VARIABLE, "PATH"]);
    const address = offer.env[HANDOFF_VARIABLE]!;
    const [port] = address.split(":");
    await assert.rejects(collectKeys(`${port}:${"0".repeat(64)}`), /not a set of variables|JSON/);
    assert.deepEqual(await collectKeys(address), { K1: "v1", K2: "v2" });
    await assert.rejects(collectKeys(address), "the listener is closed after the handoff");
  } finally {
    offer.close();
  }
});

Deno.test("key handoff: nothing to hand over, no listener; a malformed address is refused", async () => {
  assert.equal(offerKeys({ PATH: "/bin" }, ["K1"]), undefined);
  await assert.rejects(collectKeys("not an address"), /PANTO_KEY_HANDOFF is not port:token/);
});
