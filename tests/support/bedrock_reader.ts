/**
 * Reads Bedrock ConverseStream replies with the official
 * `@aws-sdk/client-bedrock-runtime`, in a process of its own: the SDK and
 * its many dependencies stay in `bench/bench.lock`, out of the root
 * lockfile that `deno task` installs on panto's first start. Run by
 * {@linkcode readWithBedrockSdk}; stdin is `{"endpoint", "region",
 * "credentials", "models": [...]}`, one streamed request per model in
 * order, and stdout the JSON of each request's stream members and error.
 *
 * @module
 */
/** Not a static import, so that type checks and the root lockfile never resolve it. */
const SDK = "npm:@aws-sdk/client-bedrock-runtime@3.1164.0";

/** The SDK surface used here. */
interface BedrockModule {
  BedrockRuntimeClient: new (options: {
    region: string;
    endpoint: string;
    credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
    maxAttempts: number;
  }) => {
    send(command: unknown): Promise<{ stream?: AsyncIterable<Record<string, unknown>> }>;
    destroy(): void;
  };
  ConverseStreamCommand: new (input: {
    modelId: string;
    messages: { role: "user"; content: { text: string }[] }[];
  }) => unknown;
}

interface ReaderInput {
  endpoint: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  models: string[];
}

/** One request's members, and the error the SDK threw (its name and message), if any. */
interface Read {
  events: Record<string, unknown>[];
  error?: { name: string; message: string };
}

async function readAll(input: ReaderInput): Promise<Read[]> {
  const { BedrockRuntimeClient, ConverseStreamCommand } = await import(SDK) as BedrockModule;
  const client = new BedrockRuntimeClient({
    region: input.region,
    endpoint: input.endpoint,
    credentials: input.credentials,
    maxAttempts: 1, // one request per scripted reply
  });
  const reads: Read[] = [];
  for (const modelId of input.models) {
    const read: Read = { events: [] };
    try {
      const command = new ConverseStreamCommand({
        modelId,
        messages: [{ role: "user", content: [{ text: "replay" }] }],
      });
      const response = await client.send(command);
      for await (const event of response.stream ?? []) read.events.push(event);
    } catch (error) {
      read.error = error instanceof Error
        ? { name: error.name, message: error.message }
        : { name: "Error", message: String(error) };
    }
    reads.push(read);
  }
  client.destroy();
  return reads;
}

/** Blobs (encrypted reasoning) as base64, as the wire carries them. */
function bytesAsBase64(_key: string, value: unknown): unknown {
  return value instanceof Uint8Array ? value.toBase64() : value;
}

if (import.meta.main) {
  const input = JSON.parse(await new Response(Deno.stdin.readable).text()) as ReaderInput;
  console.log(JSON.stringify(await readAll(input), bytesAsBase64));
}
