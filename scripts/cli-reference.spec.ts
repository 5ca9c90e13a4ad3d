// Layer 1: the CLI reference is generated from the commander program and checked in; this fails
// when a command, argument, option, default or exit code changed without `npm run docs:cli`, when a
// command has no notes, or when a CLI line in the reference, the README or any page of docs/ would
// not parse (or names an npm script that does not exist). No NATS: every action is replaced before
// parsing.
import { readdirSync, readFileSync } from 'node:fs';
import type { Command, Option } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, EXIT_CODE_MEANINGS, ExitCode } from '../apps/cli/src/cli-program.js';
import { COMMAND_NOTES, commandsOf, pathOf, renderCliReference } from './cli-reference.js';

/** What a dry parse reached: the command's path, its arguments and options. */
interface Parsed {
  readonly path: string;
  readonly args: readonly unknown[];
  readonly options: Record<string, unknown>;
}

/** Parses argv (after `nats-agents`) with every action replaced and every exit turned into a throw. */
async function dryParse(args: readonly string[], env: Record<string, string> = {}): Promise<Parsed> {
  const program = buildProgram(env);
  let parsed: Parsed | undefined;
  for (const command of [program, ...commandsOf(program)]) {
    command.exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
    if (command !== program && command.commands.length === 0) {
      command.action((...received: unknown[]) => {
        const self = received.at(-1) as Command;
        parsed = { path: pathOf(self), args: received.slice(0, -2), options: self.opts() };
      });
    }
  }
  await program.parseAsync(['node', 'nats-agents', ...args]);
  if (parsed === undefined) throw new Error(`no command ran for ${args.join(' ')}`);
  return parsed;
}

/** The words of one shell line (single and double quotes; no expansions). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|"((?:\\.|[^"\\])*)"|(\S+)/g)].map((m) => m[1] ?? m[2]?.replace(/\\(.)/g, '$1') ?? m[3] ?? '');
}

const CLI = 'node bin/nats-agents.mjs';

/** README.md and every page directly under docs/, as [name, text]. */
function documentationPages(): [string, string][] {
  const docs = new URL('../docs/', import.meta.url);
  const pages = readdirSync(docs).filter((name) => name.endsWith('.md'));
  return [['README.md', readFileSync(new URL('../README.md', import.meta.url), 'utf8')], ...pages.map((name): [string, string] => [`docs/${name}`, readFileSync(new URL(name, docs), 'utf8')])];
}

/** Lines of the pages' fenced code blocks, comments and prompts aside. */
function codeLines(text: string): string[] {
  const blocks = [...text.matchAll(/^```[a-z]*\n([\s\S]*?)^```/gm)].map((m) => m[1] ?? '');
  return blocks.flatMap((block) => block.split('\n')).map((line) => line.replace(/\s+# .*$/, '').trim());
}
const leafPaths = commandsOf(buildProgram({}))
  .filter((c) => c.commands.length === 0)
  .map(pathOf);

describe('the CLI reference', () => {
  it('has notes and an example for every command, and for nothing else', () => {
    expect(Object.keys(COMMAND_NOTES).sort()).toEqual([...leafPaths].sort());
    expect(leafPaths).toEqual(expect.arrayContaining(['provision', 'publish', 'tail', 'approve', 'deny', 'state', 'erase', 'bench', 'memory search']));
    for (const path of leafPaths) expect(COMMAND_NOTES[path]?.example.some((line) => line.startsWith(CLI)), path).toBe(true);
  });

  it('runs every example as the command it documents', async () => {
    for (const [path, notes] of Object.entries(COMMAND_NOTES)) {
      for (const line of notes.example.filter((l) => l.startsWith(CLI))) {
        const [, , ...args] = shellWords(line);
        expect((await dryParse(args)).path, line).toBe(path);
      }
    }
  });

  it('finds every CLI command the README and the docs show, with its options', async () => {
    let checked = 0;
    for (const [page, text] of documentationPages()) {
      for (const line of codeLines(text)) {
        const words = line.startsWith(`${CLI} `) ? shellWords(line).slice(2) : line.startsWith('npm run publish-event -- ') ? ['publish', ...shellWords(line).slice(4)] : undefined;
        if (words === undefined) continue;
        await expect(dryParse(words), `${page}: ${line}`).resolves.toBeDefined();
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('names only npm scripts that exist', () => {
    const scripts = Object.keys((JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts);
    const named = documentationPages().flatMap(([page, text]) => [...text.matchAll(/npm run ([a-z][\w:-]*)/g)].map((m) => `${page}: ${m[1]}`));
    expect(named.filter((entry) => !scripts.includes(entry.split(': ')[1] ?? ''))).toEqual([]);
  });

  it('documents exactly the exit codes the CLI sets', () => {
    expect(Object.keys(EXIT_CODE_MEANINGS).map(Number).sort()).toEqual(Object.values(ExitCode).sort());
  });

  it('is right that <n> and <ms> values, and only those, are integers', async () => {
    for (const command of commandsOf(buildProgram({}))) {
      const required = command.registeredArguments.filter((a) => a.required).map((a) => a.name());
      for (const option of command.options as readonly Option[]) {
        expect(option.parseArg !== undefined, option.flags).toBe(/<(n|ms)>/.test(option.flags));
        if (option.parseArg === undefined || option.long === undefined) continue;
        await expect(dryParse([...pathOf(command).split(' '), ...required, option.long, '1.5']), `${pathOf(command)} ${option.long}`).rejects.toThrow(/non-negative integer/);
      }
    }
  });

  it("defaults the approver and the erasure's requester to $USER, and the page does not depend on it", async () => {
    expect((await dryParse(['approve', 'refund', 'order-8', 'i-1'], { USER: 'ada' })).options).toMatchObject({ approver: 'ada', reason: '' });
    expect((await dryParse(['erase', 'order-8'], { USER: 'ada' })).options).toMatchObject({ requestedBy: 'ada', timeout: 120_000 });
    expect((await dryParse(['deny', 'refund', 'order-8', 'i-1'])).options).toMatchObject({ approver: 'cli' });
    expect(renderCliReference(buildProgram({ USER: 'ada' }))).toBe(renderCliReference(buildProgram({})));
  });

  it('is up to date in docs/cli.md (run `npm run docs:cli`)', () => {
    expect(readFileSync(new URL('../docs/cli.md', import.meta.url), 'utf8')).toBe(renderCliReference());
  });
});
