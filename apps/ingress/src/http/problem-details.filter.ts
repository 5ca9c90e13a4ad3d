import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { ProblemError, type ProblemDocument } from './problem.js';

/**
 * Writes every refusal of the ingress HTTP API as `application/problem+json` (RFC 9457): a
 * {@link ProblemError} as its document, any other `HttpException` (Nest's own 404 for an unknown
 * path, for instance) as a generic problem of its status. A 401 also carries
 * `WWW-Authenticate: Bearer`, as RFC 6750 asks. Other errors are left to Nest (a 500 with nothing
 * of the request in it).
 */
@Catch(HttpException)
export class ProblemDetailsFilter implements ExceptionFilter {
  catch(exception: HttpException, host: ArgumentsHost): void {
    const response = host.switchToHttp().getResponse<ServerResponse>();
    const document = exception instanceof ProblemError ? exception.document : genericProblem(exception);
    if (document.status === 401) response.setHeader('WWW-Authenticate', 'Bearer realm="nats-agents"');
    response.statusCode = document.status;
    response.setHeader('Content-Type', 'application/problem+json');
    response.end(JSON.stringify(document));
  }
}

function genericProblem(exception: HttpException): ProblemDocument {
  const status = exception.getStatus();
  return {
    // RFC 9457 §4.2.1: 'about:blank' means the status says it all.
    type: 'about:blank',
    title: exception.message,
    status,
    detail: exception.message,
    reason: status === 404 ? 'not_found' : 'http_error',
  };
}
