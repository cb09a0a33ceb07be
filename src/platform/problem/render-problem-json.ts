// RFC 9457 rendering: the body every non-2xx response carries.
import { type Problem, problemTypeUri } from './problem.ts';

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  request_id: string;
  [extra: string]: unknown;
}

export function renderProblemJson(problem: Problem, requestId: string): ProblemBody {
  return {
    ...problem.extras,
    type: problemTypeUri(problem.code),
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
    code: problem.code,
    request_id: requestId,
  };
}
