/**
 * Generates `docs/configuration.md` from the config schema itself: keys and sections from the
 * zod schema's source (`libs/config/src/runtime-config.ts`, read with the TypeScript compiler
 * API so each key's TSDoc comment becomes its description), defaults from parsing an empty
 * config, environment variables from `ConfigEnv`. `npm run docs:config` writes it; the spec beside
 * this file fails when the checked-in page is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { ConfigEnv, RuntimeConfigSchema } from '#config';

/** One documented key. */
interface KeyDoc {
  readonly path: string;
  readonly description: string;
}

const ROOT_SCHEMA = 'RuntimeConfigSchema';

/** The TSDoc text of a property, flattened to one line. */
function docOf(node: ts.Node, source: ts.SourceFile): string {
  const ranges = ts.getLeadingCommentRanges(source.text, node.getFullStart()) ?? [];
  const comment = ranges.map((r) => source.text.slice(r.pos, r.end)).find((c) => c.startsWith('/**'));
  if (comment === undefined) return '';
  return comment
    .replace(/^\/\*\*|\*\/$/g, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\*\s?/, '').trim())
    .filter((line) => line.length > 0)
    .join(' ');
}

/** The object literal of `z.strictObject({...})` / `z.object({...})` at the root of an initializer, if any. */
function objectLiteralOf(expression: ts.Expression): ts.ObjectLiteralExpression | undefined {
  let current: ts.Node = expression;
  while (ts.isCallExpression(current)) {
    const callee = current.expression;
    if (ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) && callee.expression.text === 'z' && /^(strictObject|object)$/.test(callee.name.text)) {
      const [arg] = current.arguments;
      return arg !== undefined && ts.isObjectLiteralExpression(arg) ? arg : undefined;
    }
    current = ts.isPropertyAccessExpression(callee) ? callee.expression : callee;
  }
  return undefined;
}

/** The schema identifier a property's initializer refers to (`NatsConfigSchema.prefault({})` → `NatsConfigSchema`). */
function schemaReference(expression: ts.Expression): string | undefined {
  let current: ts.Node = expression;
  while (ts.isCallExpression(current) || ts.isPropertyAccessExpression(current)) current = current.expression;
  return ts.isIdentifier(current) && current.text.endsWith('Schema') ? current.text : undefined;
}

/** The variants of `z.discriminatedUnion(tag, [z.strictObject({...}), ...])`, if that is the initializer. */
function unionVariantsOf(expression: ts.Expression): ts.ObjectLiteralExpression[] | undefined {
  if (!ts.isCallExpression(expression)) return undefined;
  const callee = expression.expression;
  if (!ts.isPropertyAccessExpression(callee) || callee.name.text !== 'discriminatedUnion') return undefined;
  const variants = expression.arguments[1];
  if (variants === undefined || !ts.isArrayLiteralExpression(variants)) return undefined;
  return variants.elements.flatMap((element) => {
    const literal = ts.isCallExpression(element) ? objectLiteralOf(element) : undefined;
    return literal === undefined ? [] : [literal];
  });
}

/** Every documented key of the schema source, in source order (keys of union variants merged). */
export function collectKeys(sourceText: string): KeyDoc[] {
  const source = ts.createSourceFile('runtime-config.ts', sourceText, ts.ScriptTarget.Latest, true);
  const schemas = new Map<string, ts.ObjectLiteralExpression[]>();
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    for (const declaration of statement.declarationList.declarations) {
      if (!ts.isIdentifier(declaration.name) || declaration.initializer === undefined) continue;
      const literal = objectLiteralOf(declaration.initializer);
      const variants = literal === undefined ? unionVariantsOf(declaration.initializer) : [literal];
      if (variants !== undefined) schemas.set(declaration.name.text, variants);
    }
  }
  const keys: KeyDoc[] = [];
  const seen = new Set<string>();
  const walk = (literal: ts.ObjectLiteralExpression, prefix: string): void => {
    for (const property of literal.properties) {
      if (!ts.isPropertyAssignment(property) || !(ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))) continue;
      const path = `${prefix}${property.name.text}`;
      const inline = objectLiteralOf(property.initializer);
      const nested = inline !== undefined ? [inline] : schemas.get(schemaReference(property.initializer) ?? '');
      const description = docOf(property, source);
      if (nested !== undefined) {
        // A section: listed when it says something of its own, then its keys.
        if (description.length > 0 && !seen.has(path)) keys.push({ path, description });
        seen.add(path);
        for (const variant of nested) walk(variant, `${path}.`);
      } else if (!seen.has(path)) {
        seen.add(path);
        keys.push({ path, description });
      }
    }
  };
  const [root] = schemas.get(ROOT_SCHEMA) ?? [];
  if (root === undefined) throw new Error(`${ROOT_SCHEMA} not found in the schema source`);
  walk(root, '');
  return keys;
}

function valueAt(value: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[k] : undefined), value);
}

function show(value: unknown): string {
  if (value === undefined) return '—';
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return '';
  return `\`${JSON.stringify(value)}\``;
}

/** The whole page. */
export function renderConfigReference(sourceText: string): string {
  const defaults = RuntimeConfigSchema.parse({});
  const envOf = new Map(Object.entries(ConfigEnv).map(([name, path]) => [(path as readonly string[]).join('.'), name]));
  const lines = [
    '# Configuration reference',
    '',
    '<!-- Generated by `npm run docs:config` from libs/config/src/runtime-config.ts; do not edit by hand. -->',
    '',
    'Every service reads one YAML (or JSON) file named by `$AGENTS_CONFIG`; the environment variables',
    'below override single keys. Unknown keys are errors. Secrets are never values here: they are files',
    'or environment variables named by the keys that end in `File` or `Env`.',
    '',
    '| key | default | env | description |',
    '| --- | --- | --- | --- |',
  ];
  for (const { path, description } of collectKeys(sourceText)) {
    const env = envOf.get(path);
    lines.push(`| \`${path}\` | ${show(valueAt(defaults, path))} | ${env === undefined ? '' : `\`${env}\``} | ${description.replaceAll('|', '\\|')} |`);
  }
  lines.push('', `\`AGENTS_CONFIG\` names the file itself. Tracing reads the standard \`OTEL_*\` variables (see [operations.md](operations.md)).`, '');
  return lines.join('\n');
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const page = renderConfigReference(readFileSync(join(root, 'libs', 'config', 'src', 'runtime-config.ts'), 'utf8'));
  writeFileSync(join(root, 'docs', 'configuration.md'), page);
  process.stdout.write('wrote docs/configuration.md\n');
}
