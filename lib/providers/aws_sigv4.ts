/**
 * AWS Signature Version 4 for requests signed with IAM credentials, by
 * `@smithy/signature-v4` (the AWS SDK's own signer, loaded on the first
 * signed request) over Web Crypto.
 *
 * @module
 */
import type { AwsCredentials } from "../config.ts";
import { concatBytes } from "../concat_bytes.ts";
import { ProviderError } from "../errors.ts";
import { errorMessage } from "../error_message.ts";

/** One POST to sign: where it goes, the headers it will carry and its exact body. */
export interface RequestToSign {
  /** Full URL (its path percent-encoded as sent). */
  url: string;
  /** The headers to send; every one is signed. */
  headers: Record<string, string>;
  /** The exact text of the body. */
  body: string;
}

/** Where and as what a request is signed. */
export interface SigningScope {
  /** The credentials. */
  credentials: AwsCredentials;
  /** The region, e.g. `us-east-1`. */
  region: string;
  /** The service's signing name, e.g. `bedrock`. */
  service: string;
  /** When it is signed (default: now). */
  signingDate?: Date;
}

/**
 * Signs a POST: the headers to send, with `authorization`, `x-amz-date`,
 * `x-amz-content-sha256` (the body's hash) and, for temporary credentials,
 * `x-amz-security-token` added. `host` is signed but left out of the result:
 * `fetch` sends it itself, from the URL.
 *
 * @param request The URL, headers and body.
 * @param scope The credentials, region and service.
 * @returns The signed headers.
 * @throws {ProviderError} `invalid_request` when signing fails (credentials of the wrong shape).
 *
 * @example
 * ```ts
 * import { signAwsRequest } from "./aws_sigv4.ts";
 * const headers = await signAwsRequest(
 *   { url: "https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse-stream", headers: {}, body: "{}" },
 *   { credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "fake" }, region: "us-east-1", service: "bedrock" },
 * );
 * console.assert(headers.authorization?.startsWith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"));
 * ```
 */
export async function signAwsRequest(
  request: RequestToSign,
  scope: SigningScope,
): Promise<Record<string, string>> {
  const url = new URL(request.url);
  const { credentials, region, service, signingDate = new Date() } = scope;
  try {
    const { SignatureV4 } = await import("@smithy/signature-v4");
    const signer = new SignatureV4({ credentials, region, service, sha256: WebCryptoSha256 });
    const signed = await signer.sign({
      method: "POST",
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port === "" ? {} : { port: Number(url.port) }),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: { ...request.headers, host: url.host },
      body: request.body,
    }, { signingDate });
    const { host: _host, ...headers } = signed.headers;
    return headers;
  } catch (error) {
    // The signer's messages name what is wrong, never a key's value.
    throw new ProviderError(
      "invalid_request",
      `could not sign the request to ${url.host} with the AWS credentials: ${errorMessage(error)}`,
      { cause: error },
    );
  }
}

/** What the signer hashes: text, or bytes. */
type SourceData = string | ArrayBuffer | ArrayBufferView;

/**
 * SHA-256, or HMAC-SHA-256 when given a key, in the shape `SignatureV4`
 * takes (`@smithy/types` `Checksum`). Web Crypto hashes natively: no
 * JavaScript SHA-256 package is needed.
 */
class WebCryptoSha256 {
  /** The HMAC key, imported as it is given (not extractable), or none for a plain hash. */
  readonly #key: Promise<CryptoKey> | undefined;
  #chunks: Uint8Array[] = [];

  constructor(secret?: SourceData) {
    if (secret === undefined) return;
    this.#key = crypto.subtle.importKey(
      "raw",
      bytesOf(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
  }

  update(chunk: Uint8Array): void {
    this.#chunks.push(chunk);
  }

  async digest(): Promise<Uint8Array> {
    const data = concatBytes(this.#chunks) as Uint8Array<ArrayBuffer>;
    const digest = this.#key === undefined
      ? await crypto.subtle.digest("SHA-256", data)
      : await crypto.subtle.sign("HMAC", await this.#key, data);
    return new Uint8Array(digest);
  }

  reset(): void {
    this.#chunks = [];
  }
}

function bytesOf(data: SourceData): Uint8Array<ArrayBuffer> {
  if (typeof data === "string") return new TextEncoder().encode(data);
  const view = ArrayBuffer.isView(data)
    ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
    : new Uint8Array(data);
  return view.slice();
}
