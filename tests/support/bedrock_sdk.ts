/**
 * The official `@aws-sdk/client-bedrock-runtime`'s reading of
 * ConverseStream replies, for tests that compare panto's parser with it
 * (see `bedrock_reader.ts` for why it runs in a process of its own).
 */
import type { AwsCredentials } from "../../lib/config.ts";
import { runSdkReader } from "./sdk_reader.ts";

/** One request's outcome: the stream members the SDK yielded, and the error it threw. */
export interface BedrockSdkRead {
  /** Members such as `{ contentBlockDelta: { contentBlockIndex, delta } }`, blobs as base64. */
  events: Record<string, unknown>[];
  /** What the SDK threw (an exception member, a bad frame, a cut stream), if it did. */
  error?: { name: string; message: string };
}

/** Where the SDK sends its requests, and as whom. */
export interface BedrockSdkTarget {
  /** The fake server's origin. */
  endpoint: string;
  /** The region the SDK signs for. */
  region: string;
  /** Static fake credentials. */
  credentials: AwsCredentials;
}

const READER = new URL("./bedrock_reader.ts", import.meta.url).pathname;

/**
 * Streams one ConverseStream request per model from `target.endpoint`
 * through `ConverseStreamCommand`, in order, in one SDK process.
 *
 * @param target Endpoint, region and credentials.
 * @param models The model of each request.
 * @returns Each request's members and error.
 */
export async function readWithBedrockSdk(
  target: BedrockSdkTarget,
  models: readonly string[],
): Promise<BedrockSdkRead[]> {
  return await runSdkReader<BedrockSdkRead[]>(READER, { ...target, models });
}
