/**
 * Reads Gemini streams with the official `@google/genai` SDK, in a process
 * of its own: the SDK's dependencies (protobufjs runs a build script) stay in
 * `bench/bench.lock`, out of the root lockfile that `deno task` installs on
 * panto's first start. Run by {@linkcode readWithGenai}; stdin is
 * `{"baseUrl", "apiKey", "models": [...]}`, one streamed request per model in
 * order, and stdout the JSON of each request's chunks (or its error).
 *
 * @module
 */
/** Not a static import, so that type checks and the root lockfile never resolve it. */
const SDK = "npm:@google/genai@3.3.0";

/** The SDK surface used here. */
interface GenaiModule {
  GoogleGenAI: new (options: {
    apiKey: string;
    httpOptions: { baseUrl: string; apiVersion: string };
  }) => {
    models: {
      generateContentStream(request: {
        model: string;
        contents: string;
        config: { automaticContinuation: boolean };
      }): Promise<AsyncIterable<unknown>>;
    };
  };
}

interface ReaderInput {
  baseUrl: string;
  apiKey: string;
  models: string[];
}

async function readAll(input: ReaderInput): Promise<unknown[]> {
  const { GoogleGenAI } = await import(SDK) as GenaiModule;
  const ai = new GoogleGenAI({
    apiKey: input.apiKey,
    httpOptions: { baseUrl: input.baseUrl, apiVersion: "v1beta" },
  });
  const results: unknown[] = [];
  for (const model of input.models) {
    try {
      const chunks: unknown[] = [];
      const stream = await ai.models.generateContentStream({
        model,
        contents: "replay",
        // One request per reply: no resuming of a stream that ends without a finish reason.
        config: { automaticContinuation: false },
      });
      for await (const chunk of stream) chunks.push(chunk);
      results.push({ chunks });
    } catch (error) {
      results.push({ error: error instanceof Error ? error.message : String(error) });
    }
  }
  return results;
}

if (import.meta.main) {
  const input = JSON.parse(await new Response(Deno.stdin.readable).text()) as ReaderInput;
  console.log(JSON.stringify(await readAll(input)));
}
