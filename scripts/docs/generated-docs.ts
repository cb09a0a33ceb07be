// The generated documentation files, each with the function that renders it; gen-docs and its drift test share this list.
import { renderConfigDoc } from './render-config-doc.ts';
import { renderErrorsDoc } from './render-errors-doc.ts';

export interface GeneratedDoc {
  /** Relative to the repository root. */
  readonly path: string;
  readonly render: () => string;
}

export const GENERATED_DOCS: readonly GeneratedDoc[] = [
  { path: 'docs/errors.md', render: renderErrorsDoc },
  { path: 'docs/configuration.md', render: renderConfigDoc },
];
