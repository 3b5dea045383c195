// The record schemas (schemas.ts) are built with zod, which costs a start
// about 8 MiB and 30 ms: they load with the first read of stored records,
// not with the store modules, so a run that only writes (`panto -p`) never
// loads them. Every store operation that decodes records awaits
// loadRecordSchemas() first; the decoders then use them synchronously.

type RecordSchemas = typeof import("./schemas.ts");

let loading: Promise<RecordSchemas> | undefined;
let loaded: RecordSchemas | undefined;

/**
 * Loads the record schemas once; later calls return the same promise.
 *
 * @returns The schemas.
 */
export function loadRecordSchemas(): Promise<RecordSchemas> {
  loading ??= import("./schemas.ts").then((schemas) => loaded = schemas);
  return loading;
}

/**
 * The record schemas, once {@linkcode loadRecordSchemas} has resolved.
 *
 * @returns The schemas.
 * @throws {Error} When they were not loaded first (a bug in the store).
 */
export function recordSchemas(): RecordSchemas {
  if (loaded) return loaded;
  throw new Error(
    "internal error: a session record was decoded before loadRecordSchemas() resolved",
  );
}
