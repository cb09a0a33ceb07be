// Extracts the presented secret: `Authorization: Bearer <x>` wins over `x-api-key`.
import type { IncomingHttpHeaders } from 'node:http';
import { platformProblem } from '../problem/platform-problems.ts';

export interface PresentedCredential {
  readonly secret: string;
  readonly header: 'authorization' | 'x-api-key';
}

export function readCredential(
  headers: IncomingHttpHeaders,
  options: {
    rejectBoth?: boolean;
    /** What the 401 for no credential says to send: the headers the deployment's auth mode takes. */
    missingDetail?: string;
  } = {},
): PresentedCredential {
  // A header given twice arrives as an array (repeated-headers.ts): two credentials, whichever they are.
  const authorization = headers.authorization as string | string[] | undefined;
  const apiKey = headers['x-api-key'];
  if (Array.isArray(authorization) || Array.isArray(apiKey)) {
    const name = Array.isArray(authorization) ? 'Authorization' : 'x-api-key';
    throw options.rejectBoth
      ? platformProblem('auth.multiple_credentials', `Send one ${name} header.`)
      : platformProblem('auth.malformed_credential', `Send one ${name} header.`);
  }
  if (options.rejectBoth && authorization !== undefined && apiKey !== undefined) {
    throw platformProblem('auth.multiple_credentials', 'Send either Authorization or x-api-key, not both.');
  }
  if (authorization !== undefined) {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
    if (!match?.[1]) {
      throw platformProblem('auth.malformed_credential', 'Expected `Authorization: Bearer <credential>`.');
    }
    return { secret: match[1], header: 'authorization' };
  }
  if (typeof apiKey === 'string') {
    const secret = apiKey.trim();
    if (secret === '') throw platformProblem('auth.malformed_credential', 'The x-api-key header is empty.');
    return { secret, header: 'x-api-key' };
  }
  throw platformProblem(
    'auth.missing_credential',
    options.missingDetail ?? 'Send `Authorization: Bearer <credential>`.',
  );
}
