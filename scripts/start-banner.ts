// What `npm start`'s ready banner suggests trying. Pure: no side effects on import.

/**
 * The commands the banner suggests: the `hello` example's when the examples are loaded, otherwise
 * (`AGENTS_MODULES` replaced the configured list) a template naming the modules that were loaded.
 */
export function tryCommands(agentModules: string | undefined): string[] {
  const key = `-H "Authorization: Bearer $(cat .data/dev-api-key)" -H 'Content-Type: application/json'`;
  if (agentModules === undefined || agentModules.trim() === '') {
    return [
      `  npm run publish-event -- hello user-1 '{"name":"Ada"}' --wait`,
      `  curl -X POST http://127.0.0.1:8080/v1/agents/hello/events/user-1 ${key} -d '{"name":"Ada"}'`,
    ];
  }
  return [
    `  (AGENTS_MODULES replaced the examples: ${agentModules})`,
    `  npm run publish-event -- <agent> <key> '<event JSON>' --wait`,
    `  curl -X POST http://127.0.0.1:8080/v1/agents/<agent>/events/<key> ${key} -d '<event JSON>'`,
  ];
}
