/**
 * Marks a route with the least role it needs. Every route of the console's API is behind
 * {@link ConsoleAuthGuard}: a route without this mark still needs a signed-in viewer (deny by
 * default); actions are marked `operator`.
 */
import { SetMetadata } from '@nestjs/common';
import type { Role } from '#auth';

/** Metadata key read by the guard. */
export const REQUIRED_ROLE = 'nats-agents.console.required-role';

/** The least role a route needs. */
export const RequireRole = (role: Role): MethodDecorator & ClassDecorator => SetMetadata(REQUIRED_ROLE, role);
