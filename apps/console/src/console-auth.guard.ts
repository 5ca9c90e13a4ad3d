/**
 * Deny by default: every API request is verified afresh with `#auth` (an API key or a JWT in the
 * `Authorization` header), must carry at least the viewer role, and an action route the role it
 * names. A refusal is a 401 problem document naming the closed reason, never the credential; a
 * signed-in principal without the role gets a 403. The verified principal is attached to the
 * request for the audit line.
 */
import { CanActivate, ExecutionContext, ForbiddenException, Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { principalHasRole, Role, type Authenticator, type Principal } from '#auth';
import { AUTHENTICATOR } from './console.tokens.js';
import { REQUIRED_ROLE } from './require-role.js';

/** A request the guard let through. */
export interface SignedInRequest {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  principal: Principal;
}

@Injectable()
export class ConsoleAuthGuard implements CanActivate {
  constructor(
    @Inject(AUTHENTICATOR) private readonly authenticator: Authenticator,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<SignedInRequest>();
    const outcome = await this.authenticator.authenticateHeaders(request.headers);
    if (!outcome.ok) {
      throw new UnauthorizedException({ type: 'about:blank', title: 'Sign-in required', status: 401, reason: outcome.reason });
    }
    const needed = this.reflector.getAllAndOverride<Role | undefined>(REQUIRED_ROLE, [context.getHandler(), context.getClass()]) ?? Role.viewer;
    if (!principalHasRole(outcome.principal, needed)) {
      throw new ForbiddenException({ type: 'about:blank', title: `This needs the ${needed} role`, status: 403, reason: 'role' });
    }
    request.principal = outcome.principal;
    return true;
  }
}
