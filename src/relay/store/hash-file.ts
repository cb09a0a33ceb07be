// SHA-256 of a file's bytes, streamed: the content part of a table's version.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 }))
    hash.update(chunk as Buffer);
  return hash.digest('hex');
}
