// Node joins the values of a repeated header it has no rule for with ", ", so two `Data-Purpose` headers read as
// one purpose "a, b" that nobody sent, and it would be audited and forwarded as such. Single-valued headers of ours
// are split back into their values here, which is what the routes refuse ("send one ...").
import type { IncomingMessage } from 'node:http';

const SINGLE_VALUED = ['data-purpose'];

export function splitRepeatedHeaders(raw: IncomingMessage): void {
  for (const name of SINGLE_VALUED) {
    const joined = raw.headers[name];
    // One header never needs the scan; a purpose may itself hold ", ", so the raw list decides.
    if (typeof joined !== 'string' || !joined.includes(', ')) continue;
    const values: string[] = [];
    const list = raw.rawHeaders;
    for (let at = 0; at + 1 < list.length; at += 2) {
      if ((list[at] as string).toLowerCase() === name) values.push(list[at + 1] as string);
    }
    if (values.length > 1) raw.headers[name] = values;
  }
}
