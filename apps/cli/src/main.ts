// The nats-agents command line: parses `process.argv` with the program `cli-program.ts` builds.
// An error no command handled exits with code 1 (see `ExitCode` there and docs/cli.md).
import { buildProgram, ExitCode } from './cli-program.js';

buildProgram(process.env)
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(ExitCode.failed);
  });
