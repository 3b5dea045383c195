/** A provider's endpoint URL and streaming headers (lib/providers/endpoint.ts). */
import assert from "node:assert/strict";
import { ProviderError } from "../../../lib/errors.ts";
import { endpointUrl, streamHeaders } from "../../../lib/providers/endpoint.ts";

Deno.test("endpointUrl: appends to the path, keeping the query and dropping a trailing slash", () => {
  const url = endpointUrl("https://r.example/openai/v1/?api-version=2025", "/responses", "x");
  assert.equal(url.href, "https://r.example/openai/v1/responses?api-version=2025");
});

Deno.test("endpointUrl: a base that is not a URL is invalid_request naming it and an example", () => {
  assert.throws(
    () => endpointUrl("api.example.com/v1", "/chat/completions", "https://api.openai.com/v1"),
    (error: unknown) =>
      error instanceof ProviderError && error.kind === "invalid_request" &&
      error.message.includes('"api.example.com/v1"') &&
      error.message.includes("https://api.openai.com/v1"),
  );
});

Deno.test("streamHeaders: the configured headers win over the defaults and the auth", () => {
  const headers = { accept: "application/json", authorization: "Bearer mine" };
  const config = {
    api: "openai-chat",
    baseUrl: "",
    model: "m",
    reasoning: "off",
    headers,
  } as const;
  assert.deepEqual(streamHeaders(config, { authorization: "Bearer k" }), {
    "content-type": "application/json",
    accept: "application/json",
    authorization: "Bearer mine",
  });
});
