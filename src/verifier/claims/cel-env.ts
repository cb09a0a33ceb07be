// The CEL environment every rule is checked and run in: the library's standard one, with `timestamp(int)` read as
// Unix seconds, as the CEL language definition and its other implementations read it (@bufbuild/cel 0.6 reads
// milliseconds, so a rule written against the definition would be off by a factor of a thousand).
import { create } from '@bufbuild/protobuf';
import { TimestampSchema } from '@bufbuild/protobuf/wkt';
import { type CelEnv, CelScalar, celEnv, celFunc, objectType } from '@bufbuild/cel';

/** The range of a CEL timestamp: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z. */
const MIN_SECONDS = -62135596800n;
const MAX_SECONDS = 253402300799n;

const timestampFromSeconds = celFunc(
  'timestamp',
  [CelScalar.INT],
  objectType(TimestampSchema),
  (seconds: bigint) => {
    if (seconds < MIN_SECONDS || seconds > MAX_SECONDS) throw new Error('timestamp out of range');
    return create(TimestampSchema, { seconds, nanos: 0 });
  },
);

export function createCelEnv(): CelEnv {
  return celEnv({ funcs: [timestampFromSeconds] });
}
