import assert from "node:assert/strict";
import { SessionInUseError, SessionStoreError } from "@panto/lib";
import { turnFailureMessage } from "../../../cli/shared/error_message.ts";

Deno.test("a failed turn: store errors speak for themselves, others get the prefix", () => {
  const saving = new SessionStoreError("Could not save the session to /s/a.jsonl: disk full");
  assert.equal(turnFailureMessage("The request failed", saving), saving.message);
  const locked = new SessionInUseError("abc", "42");
  assert.equal(turnFailureMessage("The turn failed", locked), locked.message);
  assert.equal(
    turnFailureMessage("The request failed", new Error("socket hang up")),
    "The request failed: socket hang up",
  );
});
