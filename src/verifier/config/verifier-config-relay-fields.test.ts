// Relay field names a binding reads by: each travels as a query parameter name (`national_id=...`) and in the
// `fields=a,b` list, so a name that would be read as something else there does not load.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadVerifierConfigText } from './load-verifier-config.ts';
import { BASE, ENV, issuesOf } from './verifier-config-test-support.ts';

const messagesAt = (text: string, path: string) =>
  issuesOf(text)
    .filter((issue) => issue.path === path)
    .map((issue) => issue.message);

describe('verifier config relay field names', () => {
  it('refuses a lookup field the relay would read as an operator or as one of its own parameters', () => {
    // `birth_date.gte=` is a range filter, not the equality a lookup is; `limit=` would set the page size.
    for (const field of ['birth_date.gte', 'national_id.in', 'limit', 'fields', 'cursor', 'expand']) {
      const text = BASE.replace('field: national_id }', `field: ${field} }`);
      const messages = messagesAt(text, 'evidence.claims.0.source_bindings.p.lookup.field');
      assert.equal(messages.length, 1, `${field}: ${messages.join('; ')}`);
    }
  });

  it('refuses a projected field with a `.`, a `,` or a space, which the relay would read as other fields', () => {
    for (const field of ['address.city', '"name,age"', '"name age"']) {
      const text = BASE.replace('fields: [deceased]', `fields: [deceased, ${field}]`);
      const messages = messagesAt(text, 'evidence.claims.0.source_bindings.p.fields.1');
      assert.equal(messages.length, 1, `${field}: ${messages.join('; ')}`);
      assert.match(messages[0] as string, /field name/);
    }
  });

  it('loads the field names relays publish', () => {
    const text = BASE.replace('field: national_id }', 'field: National_ID-2 }').replace(
      'fields: [deceased]',
      'fields: [deceased, date_of_birth, Status2]',
    );
    assert.doesNotThrow(() => loadVerifierConfigText(text, ENV, '/tmp'));
  });
});
