/**
 * The tools one effector executes: the operator's modules plus the built-in `http` tool when
 * configured, checked at start-up so a misconfiguration stops the service instead of producing
 * results: a tool name taken twice, or a tool timeout not strictly below the lease (a run could
 * then outlive its claim and run twice).
 */
import type { AnyToolDefinition } from '#core';
import { EffectorConfigError } from './effector-errors.js';
import { createHttpTool, HTTP_TOOL_NAME, type HttpFetch } from './http-tool.js';

/** What the catalog is built from. */
export interface ToolCatalogOptions {
  /** Tools loaded from `effector.toolModules`. */
  readonly loaded: ReadonlyMap<string, AnyToolDefinition>;
  /** `effector.httpToolUrl`. */
  readonly httpToolUrl: string | undefined;
  readonly leaseMs: number;
  readonly toolTimeoutMs: number;
  /** The fetch of the `http` tool (specs inject one). */
  readonly fetch?: HttpFetch;
}

/** Builds and checks the catalog; throws {@link EffectorConfigError}. */
export function buildToolCatalog(options: ToolCatalogOptions): Map<string, AnyToolDefinition> {
  const tools = new Map(options.loaded);
  if (options.httpToolUrl !== undefined) {
    if (tools.has(HTTP_TOOL_NAME)) throw new EffectorConfigError(`a tool module defines '${HTTP_TOOL_NAME}', which is the built-in tool enabled by effector.httpToolUrl`);
    tools.set(HTTP_TOOL_NAME, createHttpTool(options.httpToolUrl, options.fetch));
  }
  if (options.toolTimeoutMs >= options.leaseMs) {
    throw new EffectorConfigError(`effector.leaseMs (${options.leaseMs}) must be longer than effector.toolTimeoutMs (${options.toolTimeoutMs})`);
  }
  for (const tool of tools.values()) {
    if (tool.sideEffect && tool.timeoutMs !== undefined && !(tool.timeoutMs > 0 && tool.timeoutMs < options.leaseMs)) {
      throw new EffectorConfigError(`tool '${tool.name}' has timeoutMs ${tool.timeoutMs}; it must be positive and below effector.leaseMs (${options.leaseMs})`);
    }
    if (tool.retries !== undefined && !(Number.isInteger(tool.retries) && tool.retries >= 0)) {
      throw new EffectorConfigError(`tool '${tool.name}' has retries ${tool.retries}; it must be a non-negative integer`);
    }
  }
  return tools;
}
