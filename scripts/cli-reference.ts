/**
 * Generates `docs/cli.md` from the commander program itself (`buildProgram` in
 * `apps/cli/src/cli-program.ts`): every command and subcommand with its usage, arguments, options
 * and defaults as commander's own help reads them, and the exit codes from `ExitCode`. What the
 * program cannot say — what a command prints and an example run — is kept here, one entry per
 * command. `npm run docs:cli` writes the page; the spec beside this file fails when it is stale,
 * when a command has no entry here, or when an example does not parse.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Argument, Command, Help, Option } from 'commander';
import { buildProgram, EXIT_CODE_MEANINGS } from '../apps/cli/src/cli-program.js';

/** What the reference says about one command beyond its definition. */
export interface CommandNotes {
  /** What the command prints (and where), in a sentence or two. */
  readonly prints: string;
  /** Shell lines of an example run; `#` lines are the output they printed. */
  readonly example: readonly string[];
}

/**
 * Per command path (`publish`, `memory search`). The examples were run against `npm start`
 * (the local cluster with the example agents); the intent ids and hashes are from those runs.
 */
export const COMMAND_NOTES: Readonly<Record<string, CommandNotes>> = {
  provision: {
    prints: 'a JSON report of the streams and buckets `created`, `updated` and `unchanged`, and the server\'s `maxPayload`; warnings (a `max_payload` too small for a full state document) go to stderr.',
    example: ['node bin/nats-agents.mjs provision', '# {"created": ["AGENTS_INGEST", "AGENTS_INBOX", …, "AGENTS_ERASURES"], "updated": [], "unchanged": [], "maxPayload": 8388608}   (pretty-printed)'],
  },
  publish: {
    prints:
      'the stream acknowledgement `{"stream","seq","duplicate"}`, or with `--wait` the output the activation published (its text), or `error: <reason>: <detail>` on stderr and exit code 2; with `--wait --json`, one line `{"kind":"output","seq","msgId","output"}` or `{"kind":"error","reason","detail","eventTimeMs"}`. A suspended activation answers when it completes, so `--wait` on an event that waits for a human waits for the decision (up to `--timeout`).',
    example: [
      "node bin/nats-agents.mjs publish hello user-1 '{\"name\":\"Ada\"}' --wait",
      '# {"greeting":"Hello, Ada! Nice to see you.","seq":0,"visits":1}',
      "node bin/nats-agents.mjs publish refund order-10 'not json' --wait --json",
      '# {"kind":"error","reason":"malformed_input","detail":"the event must be JSON","eventTimeMs":1796007999974}   (exit code 2)',
    ],
  },
  approve: {
    prints: 'the decision and its stream acknowledgement as JSON. The decision resumes the agent; a decision for an intent nothing waits for becomes an `orphaned_result` error record.',
    example: [
      'node bin/nats-agents.mjs approve refund order-8 ec02462f-216e-57ec-9898-f06b5f65f978 --approver ada',
      '# {"decision":"approve","intentId":"ec02462f-216e-57ec-9898-f06b5f65f978","stream":"AGENTS_INGEST","seq":7,"duplicate":false}',
    ],
  },
  deny: {
    prints: 'the decision and its stream acknowledgement as JSON, like `approve`; the agent resumes with a denied approval.',
    example: [
      "node bin/nats-agents.mjs deny refund order-9 af02f068-ce38-5f60-bc08-ca48b6b0f921 --approver ada --reason 'over the limit'",
      '# {"decision":"deny","intentId":"af02f068-ce38-5f60-bc08-ca48b6b0f921","stream":"AGENTS_INGEST","seq":10,"duplicate":false}',
    ],
  },
  tail: {
    prints:
      'one line per message: `<subject> seq=<n> <output>` for outputs, `<subject> intent=<id> key=<key> tool=<tool> args=<json> expires_at=<ms>` for intents and approval requests, `<subject> key=<key> reason=<reason> detail=<detail> event_time=<ms>` for error records; with `--json`, one JSON object per line with the same fields. Runs until Ctrl-C or `--count`.',
    example: [
      'node bin/nats-agents.mjs tail approval-requests --all --agent refund --json --count 1',
      '# {"subject":"agents.approval-requests.refund.order-8","intentId":"ec02462f-216e-57ec-9898-f06b5f65f978","agent":"refund","key":"order-8","tool":"approval","args":"{\\"amount\\":400,\\"orderId\\":\\"o-8\\",\\"reason\\":\\"\\"}","expiresAtMs":1796094383783}',
      'node bin/nats-agents.mjs tail errors --all --count 1',
      '# agents.errors.refund.malformed_input key=order-10 reason=malformed_input detail=the event must be JSON event_time=1796007999054',
    ],
  },
  'longterm-copy': {
    prints: 'progress (`read N, applied M…`) on stderr, then `{"read","applied"}` as JSON. Stop writers first for an exact copy.',
    example: ['node bin/nats-agents.mjs longterm-copy sqlite://.data/longterm.db sqlite:///tmp/longterm-copy.db', '# {"read":3,"applied":3}'],
  },
  state: {
    prints:
      'the committed actor document as JSON: KV revision, state schema version, key, `seq`, `lastAppliedSeq`, `ownerEpoch`, working-memory entries and replay-cache entries (sizes, not contents), the continuation and pending intents of a suspension, the outbox and timers; `no committed state` for a key that has none.',
    example: [
      'node bin/nats-agents.mjs state refund order-11',
      '# {"revision": 335, "stateSchemaVersion": 1, "key": "order-11", "keyHex": "6f726465722d3131", "seq": 1, "lastAppliedSeq": 335, "ownerEpoch": 6,',
      '#  "memory": [{"key": "requests", "bytes": 36, …}], "memoryBytes": 44, "replayCache": [],',
      '#  "continuation": {"seq": 0, "stepIndex": 1, "pendingIntentIds": ["3be3ff0d-ef24-56be-82b3-4647761041b4"], "snapshot": 62, "deadlineMs": 1796094466934, …},',
      '#  "pending": [{"intentId": "3be3ff0d-…", "tool": "approval", …}], "outbox": [{"subject": "agents.approval-requests.refund.order-11", …}], "timers": [{"timerId": "deadline-0-0", …}]}   (pretty-printed)',
    ],
  },
  'memory search': {
    prints: 'the matching long-term records as a JSON array (value as text, type, seq, expiry, supersede pointers, confidence).',
    example: ['node bin/nats-agents.mjs memory search facts shopper-1 fact/ --include-superseded'],
  },
  'memory history': {
    prints: 'the supersede chain through the record as a JSON array, oldest first.',
    example: ['node bin/nats-agents.mjs memory history facts shopper-1 fact/runtime/000002'],
  },
  'memory supersede': {
    prints: 'the retired record as JSON. The write carries a seq above the record\'s, so a late duplicate of the original write cannot undo it.',
    example: ['node bin/nats-agents.mjs memory supersede facts shopper-1 fact/runtime/000000 fact/runtime/000002'],
  },
  'memory restore': {
    prints: 'the restored record as JSON; exit code 1 when the record does not exist.',
    example: ['node bin/nats-agents.mjs memory restore facts shopper-1 fact/runtime/000000'],
  },
  erase: {
    prints:
      'once the audit record is written: `erased entity sha256:<hash> (request <id>) in <n> passes` and a count per place (stream or bucket), or the report as one JSON line with `--json`. Never the key or any content. A failure prints `erasure failed (<code>…)` on stderr with exit code 75 when repeating it is safe, else 1.',
    example: [
      'node bin/nats-agents.mjs erase order-8 --requested-by dpo@example.com',
      '# erased entity sha256:329f75d24aca913892d9e7342232e12c9baff7b5d8db697032d1fa9580e76174 (request a3de3d7f-0e8d-5054-b8e0-5866092631a5) in 2 passes',
      '#   AGENTS_INTENTS: 2',
      '#   AGENTS_INGEST: 3',
      '#   …',
    ],
  },
  'errors redrive': {
    prints:
      'one line `redrove <n> event(s); <n> already redriven; <n> skipped` and a line per skipped record (its element is gone from the inbox, or it names none), or the report as JSON with `--json`. Running it again publishes nothing already redriven.',
    example: ['node bin/nats-agents.mjs errors redrive --agent refund --reason activation_error --since 1796000000000', '# redrove 3 event(s); 0 already redriven; 0 skipped'],
  },
  'key-digest': {
    prints: 'the 32-hex-digit digest that spans carry as `agents.key` for this key (search Jaeger with `agents.key=<digest>`); the same in every service that shares `AGENTS_TRACE_KEY_SALT`.',
    example: ['node bin/nats-agents.mjs key-digest order-42', '# 3bf8b157c4238eefe5ae4a66eca81c6b'],
  },
  snapshot: {
    prints:
      'the key snapshot (JSON, format `nats-agents/key-snapshot` version 1, docs/replay.md) to stdout, or with `--out` to a file (mode 0600) and a one-line summary to stderr. A snapshot is personal data outside the cluster (docs/memory.md); `--redact` keeps sizes and digests only.',
    example: ['node bin/nats-agents.mjs snapshot refund order-42 --out order-42.json', '# wrote order-42.json: 3 inbox elements, 1 outputs, 2 intents, 0 error records'],
  },
  replay: {
    prints:
      'one line per replayed element (with `--print-state`, the state after it), then `reproduced`, or `diverged` and every divergence with its element, or `irreproducible`, the missing model response (in a completed activation: one the snapshot holds no replay journal of) and what to do about it (a `--model-script`, `--through`, the journal for activations to come, or a snapshot taken during the suspension); with `--json`, `{"step":…}` lines and a `{"report":…}` line. Exit code 3 when anything diverged, 4 when irreproducible.',
    example: [
      'node bin/nats-agents.mjs replay order-42.json --modules dist/agents/refund-v2.agent.js',
      '# element 1: inbox seq 17 event at 1764590000000 -> suspended, 1 published, same',
      '# element 2: inbox seq 19 approval at 1764590004000 -> suspended, 1 published, same',
      '# element 3: inbox seq 23 result at 1764590004100 -> completed, 1 published, 1 divergence(s)',
      '# diverged: 1 divergence(s) over 3 elements',
      '#   element 3 (inbox seq 23): output 0b6c… different (recorded: {"status":"refunded",…}; replayed: {"status":"refunded-v2",…})',
    ],
  },
  bench: {
    prints:
      'outputs received out of events sent, duration, activations/s and publish → output latency percentiles (p50, p90, p99, max), error records by reason and timed-out keys; with `--json`, the same as one JSON line. Exit code 2 when not every event got an output.',
    example: [
      "node bin/nats-agents.mjs bench refund --events 60 --keys 12 --concurrency 6 --payload '{\"orderId\":\"{{key}}-{{n}}\",\"amount\":5}'",
      '# refund: 60/60 outputs over 12 keys in 984 ms, 61 activations/s at concurrency 6',
      '# publish → output latency ms: p50 78.9, p90 163.9, p99 220.5, max 220.5',
    ],
  },
};

/** Every command below the root, depth first in definition order, without commander's implicit `help`. */
export function commandsOf(program: Command): Command[] {
  return program.commands.flatMap((command) => (command.name() === 'help' ? [] : [command, ...commandsOf(command)]));
}

/** The command's path below the program: `publish`, `memory search`. */
export function pathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** Markdown text outside code spans: `<` would start an HTML tag. */
function prose(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replaceAll('<', '&lt;')))
    .join('');
}

/** A table cell: prose with its pipes escaped (inside code spans too, as GitHub tables require). */
function cell(text: string): string {
  return prose(text).replaceAll('|', '\\|');
}

/** Text inside a table's code span: only the pipes need escaping. */
function code(text: string): string {
  return `\`${text.replaceAll('|', '\\|')}\``;
}

/** A default as the reader would type it: strings bare (`""` when empty), other values as JSON. */
function defaultOf(item: Option | Argument): string {
  if (item.defaultValueDescription !== undefined) return cell(item.defaultValueDescription);
  const value: unknown = item.defaultValue;
  if (value === undefined) return '';
  return code(typeof value === 'string' && value !== '' ? value : JSON.stringify(value));
}

/** A command's description as a sentence. */
function sentence(text: string): string {
  return `${prose(text.charAt(0).toUpperCase() + text.slice(1))}.`;
}

function anchorOf(path: string): string {
  return path.replaceAll(' ', '-');
}

function optionRows(help: Help, command: Command): string[] {
  const options = help.visibleOptions(command).filter((option) => option.long !== '--help');
  if (options.length === 0) return [];
  return ['| option | default | description |', '| --- | --- | --- |', ...options.map((o: Option) => `| ${code(o.flags)} | ${defaultOf(o)} | ${cell(o.description)} |`)];
}

function argumentRows(help: Help, command: Command): string[] {
  const args = help.visibleArguments(command);
  if (args.length === 0) return [];
  return [
    '| argument | required | default | description |',
    '| --- | --- | --- | --- |',
    ...args.map((a: Argument) => `| ${code(a.name())} | ${a.required ? 'yes' : 'no'} | ${defaultOf(a)} | ${cell(a.description)} |`),
  ];
}

function commandSection(help: Help, command: Command): string[] {
  const path = pathOf(command);
  const lines = [`## ${path}`, '', sentence(command.description()), '', '```text', help.commandUsage(command), '```', ''];
  const args = argumentRows(help, command);
  if (args.length > 0) lines.push(...args, '');
  const options = optionRows(help, command);
  if (options.length > 0) lines.push(...options, '');
  const subcommands = commandsOf(command).filter((c) => c.parent === command);
  if (subcommands.length > 0) {
    lines.push('Subcommands: ' + subcommands.map((c) => `[\`${pathOf(c)}\`](#${anchorOf(pathOf(c))})`).join(', ') + '.', '');
  }
  const notes = COMMAND_NOTES[path];
  if (notes !== undefined) lines.push(`Prints ${prose(notes.prints)}`, '', '```sh', ...notes.example, '```', '');
  return lines;
}

/** The whole page. */
export function renderCliReference(program: Command = buildProgram({})): string {
  const help = program.createHelp();
  const commands = commandsOf(program);
  const globalOptions = optionRows(help, program);
  const lines = [
    '# CLI reference',
    '',
    '<!-- Generated by `npm run docs:cli` from apps/cli/src/cli-program.ts; do not edit by hand. -->',
    '',
    `The \`${program.name()}\` command line. ${prose(program.description())} In a checkout, run it as \`node bin/nats-agents.mjs\` after`,
    '`npm run build` (`npm start` builds too); `npm run provision` and `npm run publish-event --` are',
    'shortcuts for `provision` and `publish`. Every command accepts `-h, --help`. Values written `<n>` or',
    '`<ms>` are non-negative integers (`<ms>`: milliseconds).',
    '',
    '## Global options',
    '',
    ...globalOptions,
    '',
    'They may come before or after the command. The CLI reads the deployment\'s configuration the way the',
    'services do ([configuration.md](configuration.md)): the file named by `--config` or `$AGENTS_CONFIG`,',
    'then the environment (`NATS_URL`, `AGENTS_PREFIX`, `AGENTS_PARTITIONS`, …), and connects with the',
    'same credentials and TLS. `--server` wins over both.',
    '',
    '## Exit codes',
    '',
    '| code | meaning |',
    '| --- | --- |',
    ...Object.entries(EXIT_CODE_MEANINGS).map(([code, meaning]) => `| ${code} | ${cell(meaning)} |`),
    '',
    '## Commands',
    '',
    '| command | what it does |',
    '| --- | --- |',
    ...commands.map((c) => `| [\`${pathOf(c)}\`](#${anchorOf(pathOf(c))}) | ${cell(c.description())} |`),
    '',
    ...commands.flatMap((c) => commandSection(help, c)),
  ];
  return `${lines.join('\n').trimEnd()}\n`;
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(join(root, 'docs', 'cli.md'), renderCliReference());
  process.stdout.write('wrote docs/cli.md\n');
}
