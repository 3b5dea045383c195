/**
 * The official `@google/genai` SDK's reading of Gemini streams, for tests
 * that compare panto's parser with it (see `genai_reader.ts` for why it runs
 * in a process of its own).
 */
import { runSdkReader } from "./sdk_reader.ts";

/** The part of a streamed `GenerateContentResponse` the comparisons read. */
export interface GenaiChunk {
  candidates?: {
    content?: {
      parts?: {
        text?: string;
        thought?: boolean;
        thoughtSignature?: string;
        functionCall?: {
          name?: string;
          args?: Record<string, unknown>;
          id?: string;
          willContinue?: boolean;
          partialArgs?: unknown;
        };
      }[];
    };
    finishReason?: string;
  }[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: {
    promptTokenCount?: number;
    candidatesTokenCount?: number;
    thoughtsTokenCount?: number;
    cachedContentTokenCount?: number;
    toolUsePromptTokenCount?: number;
  };
}

/** One request's outcome: the chunks the SDK yielded, or the error it threw. */
export type GenaiRead = { chunks: GenaiChunk[] } | { error: string };

const READER = new URL("./genai_reader.ts", import.meta.url).pathname;

/**
 * Streams one request per model from `baseUrl` (a fake server's origin)
 * through `generateContentStream`, in order.
 *
 * @param baseUrl The server's origin (the SDK adds `/v1beta`).
 * @param models The model of each request.
 * @param apiKey The key the SDK sends.
 * @returns Each request's chunks or error.
 */
export async function readWithGenai(
  baseUrl: string,
  models: readonly string[],
  apiKey = "test-key",
): Promise<GenaiRead[]> {
  return await runSdkReader<GenaiRead[]>(READER, { baseUrl, apiKey, models });
}

/**
 * The chunks of a read that must have succeeded.
 *
 * @param read One request's outcome.
 * @returns Its chunks.
 * @throws {Error} With the SDK's message when it threw.
 */
export function chunksOf(read: GenaiRead | undefined): GenaiChunk[] {
  if (read === undefined) throw new Error("the SDK read no such request");
  if ("error" in read) throw new Error(`@google/genai threw: ${read.error}`);
  return read.chunks;
}
