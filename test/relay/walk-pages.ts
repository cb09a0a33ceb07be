// Follows a paginated collection to its end, by `next_cursor` or by the `Link` header, recording every page.
import assert from 'node:assert/strict';
import type { Persona, TestRelay } from '../helpers/relay-harness.ts';

export interface WalkedPage {
  readonly data: Record<string, unknown>[];
  readonly link: string | undefined;
  readonly nextCursor: string | undefined;
}

const LINK = /^<([^>]+)>; rel="next"$/;
const MAX_PAGES = 1000;

export async function walkPages(
  relay: TestRelay,
  firstPath: string,
  options: { as?: Persona; headers?: Record<string, string>; follow: 'cursor' | 'link' },
): Promise<WalkedPage[]> {
  const pages: WalkedPage[] = [];
  let path: string | undefined = firstPath;
  while (path !== undefined) {
    assert.ok(pages.length < MAX_PAGES, 'pagination does not terminate');
    const response = await relay.get(path, {
      ...(options.as ? { as: options.as } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
    });
    assert.equal(response.statusCode, 200, `${path}: ${response.body.slice(0, 300)}`);
    const body = response.json();
    const link = response.headers.link as string | undefined;
    const nextCursor: string | undefined = body.pagination.next_cursor;
    assert.equal(
      body.pagination.has_more,
      nextCursor !== undefined,
      'next_cursor is present exactly when has_more',
    );
    assert.equal(
      link !== undefined,
      nextCursor !== undefined,
      'Link is present exactly when there is a next page',
    );
    pages.push({ data: body.data, link, nextCursor });
    if (nextCursor === undefined) path = undefined;
    else if (options.follow === 'cursor') path = withCursor(path, nextCursor);
    else {
      const target = LINK.exec(link ?? '')?.[1];
      assert.ok(target, `Link header ${link} is not <path>; rel="next"`);
      path = target;
    }
  }
  return pages;
}

/** The path with its `cursor` parameter replaced. */
export function withCursor(path: string, cursor: string): string {
  const url = new URL(path, 'http://relay.invalid');
  url.searchParams.set('cursor', cursor);
  return `${url.pathname}${url.search}`;
}
