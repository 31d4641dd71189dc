import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { postgresSchemaOf } from '@pay/migrate';

/**
 * Who owns each table, and who else names it: the source scan behind the rule "a module's
 * tables are named only in its store" (scripts/dependency-rules.test.ts). It is not an import
 * rule, so dependency-cruiser cannot check it: a table is named by a string.
 *
 * Ownership comes from the Prisma schemas (`services/*\/prisma/schema.prisma`,
 * `packages/*\/prisma/schema.prisma`): each model is a table (`@@map`, else the model's name) in
 * the Postgres schema `@@schema` names, else the one its package.json pins (`postgresSchema`:
 * packages/http's is `kit`), else the one named after its project (`services/crypto` → `crypto`). In a service, the model also says which module owns it, with a line
 * `// owner: <module>` inside the model; a package is one module, so its models need none.
 * A module's store is every file, under the module's folder (`src/<module>/` today,
 * `src/modules/<module>/` in the layout being moved to) or under the project's `test/<module>/`
 * (its test helpers), that is itself a store (`store.ts`, `store.test.ts`, `<x>-store.ts`)
 * or sits in a `store/` folder. A table is named by a Kysely call, a Prisma model call, or SQL
 * text (in a string or template, or in a .sql file outside migrations: a stored function).
 */

export interface Table {
  /** Postgres schema: `invoicing`. */
  schema: string;
  /** As stored: `kyc_sessions`. */
  name: string;
  /** The Prisma model: `KycSession` (its client delegate is `kycSession`). */
  model: string;
  /** The project folder: `services/invoicing`. */
  project: string;
  /** The owning module inside the project (`kyc`), or null when the project is one module (a package). */
  module: string | null;
}

export const qualified = (table: Pick<Table, 'schema' | 'name'>) => `${table.schema}.${table.name}`;

/** `services/invoicing: kyc` or `packages/accounts`. */
export const ownerOf = (table: Table) => (table.module ? `${table.project}: ${table.module}` : table.project);

/** The tables of one schema.prisma text (`project` is its folder, relative to the root). */
export function tablesInSchema(text: string, project: string, projectSchema = path.basename(project)): Table[] {
  const tables: Table[] = [];
  for (const match of text.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    const [, model, body] = match as unknown as [string, string, string];
    const map = /@@map\(\s*"([^"]+)"\s*\)/.exec(body);
    const schema = /@@schema\(\s*"([^"]+)"\s*\)/.exec(body);
    const owner = /^\s*\/\/\s*owner:\s*([\w/-]+)/m.exec(body);
    tables.push({ schema: schema?.[1] ?? projectSchema, name: map?.[1] ?? model, model, project, module: owner?.[1] ?? null });
  }
  return tables;
}

/** Every table of the workspace's Prisma schemas. */
export function workspaceTables(root: string): Table[] {
  return ['services', 'packages'].flatMap((top) =>
    readdirSync(path.join(root, top)).flatMap((name) => {
      const file = path.join(root, top, name, 'prisma', 'schema.prisma');
      return existsSync(file) ? tablesInSchema(readFileSync(file, 'utf8'), `${top}/${name}`, postgresSchemaOf(path.join(root, top, name)) ?? name) : [];
    }),
  );
}

/** Whether `file` (relative to the root, `/`-separated) is part of the store of the module owning `table`. */
export function isStoreOf(file: string, table: Table): boolean {
  const inProject = file.startsWith(table.project + '/') ? file.slice(table.project.length + 1) : null;
  if (inProject === null) return false;
  const homes = table.module ? ['src/', 'src/modules/', 'test/', 'test/modules/'].map((top) => `${top}${table.module}/`) : ['src/', 'test/'];
  const home = homes.find((prefix) => inProject.startsWith(prefix));
  if (!home) return false;
  return /(^|\/)store(\/|\.[^/]*$)|-store\.[^/]+$/.test(inProject.slice(home.length));
}

/**
 * A file's text with comments blanked (strings kept, offsets unchanged), and the text of each
 * string and template literal (a template's `${…}` parts as one space).
 */
export function lex(text: string): { code: string; literals: string[] } {
  const code = text.split('');
  const literals: string[] = [];
  // Open template literals: the brace depth of `${` at which each one resumes.
  const templates: number[] = [];
  let depth = 0;
  let i = 0;
  const readString = (quote: string) => {
    let out = '';
    i++;
    while (i < text.length && text[i] !== quote && text[i] !== '\n') {
      if (text[i] === '\\') {
        out += text[i + 1] ?? '';
        i += 2;
      } else out += text[i++];
    }
    i++;
    literals.push(out);
  };
  // Reads template text from i until `${` (pushes and returns true) or the closing backtick.
  const readTemplate = (): void => {
    let out = '';
    while (i < text.length) {
      if (text[i] === '\\') {
        out += text[i + 1] ?? '';
        i += 2;
      } else if (text[i] === '`') {
        i++;
        literals.push(out);
        return;
      } else if (text[i] === '$' && text[i + 1] === '{') {
        i += 2;
        literals.push(out);
        templates.push(depth);
        depth++;
        return;
      } else out += text[i++];
    }
    literals.push(out);
  };
  while (i < text.length) {
    const c = text[i]!;
    if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') code[i++] = ' ';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      for (; i < stop; i++) if (code[i] !== '\n') code[i] = ' ';
    } else if (c === "'" || c === '"') readString(c);
    else if (c === '`') {
      i++;
      readTemplate();
    } else if (c === '{') {
      depth++;
      i++;
    } else if (c === '}') {
      depth--;
      i++;
      if (templates.length && templates[templates.length - 1] === depth) {
        templates.pop();
        readTemplate();
      }
    } else i++;
  }
  return { code: code.join(''), literals };
}

const KYSELY_CALL = /\.\s*(selectFrom|insertInto|updateTable|deleteFrom|mergeInto|replaceInto|innerJoin|leftJoin|rightJoin|fullJoin|innerJoinLateral|leftJoinLateral|crossJoin|using|withSchema|table)\s*\(\s*(\[[^\]]*\]|'[^']*'|"[^"]*")/g;
const PRISMA_CALL = /\.\s*([a-z]\w*)\s*\.\s*(findMany|findUnique|findUniqueOrThrow|findFirst|findFirstOrThrow|create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany|count|aggregate|groupBy)\s*\(/g;
/** SQL keywords (upper case, as this code base writes SQL) followed by one table, or TRUNCATE's list. */
const SQL_TABLE = /\b(?:FROM|JOIN|INTO|UPDATE|REFERENCES|TABLE)\s+(?:ONLY\s+)?((?:"?\w+"?\.)?"?\w+"?)/g;
const SQL_TRUNCATE = /\bTRUNCATE\s+(?:TABLE\s+)?(?:ONLY\s+)?((?:"?[\w.]+"?\s*,\s*)*"?[\w.]+"?)/g;
/** In a .sql file the keywords may be in any case: it holds nothing but SQL. */
const anyCase = (re: RegExp) => new RegExp(re.source, 'gi');

/** A .sql file's text without its comments (`-- …`, `/* … *\/`). */
const sqlWithoutComments = (text: string) => text.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/--[^\n]*/g, ' ');

export interface Naming {
  file: string;
  table: Table;
  /** How it was named: `selectFrom('customers')`, `SQL text`, `prisma customer.findMany`. */
  how: string;
}

/** The tables one file names (`file` relative to the root), each once per way it names it. */
export function tablesNamedIn(file: string, text: string, tables: Table[]): Naming[] {
  const isSql = file.endsWith('.sql');
  const { code, literals } = isSql ? { code: '', literals: [sqlWithoutComments(text)] } : lex(text);
  const byName = new Map<string, Table[]>();
  for (const t of tables) byName.set(t.name, [...(byName.get(t.name) ?? []), t]);
  const byQualified = new Map(tables.map((t) => [qualified(t), t]));
  const byDelegate = new Map<string, Table[]>();
  for (const t of tables) {
    const delegate = t.model[0]!.toLowerCase() + t.model.slice(1);
    byDelegate.set(delegate, [...(byDelegate.get(delegate) ?? []), t]);
  }
  const schemasInFile = new Set<string>();
  for (const m of code.matchAll(KYSELY_CALL)) if (m[1] === 'withSchema') for (const s of m[2]!.matchAll(/['"]([^'"]+)['"]/g)) schemasInFile.add(s[1]!);
  // An unqualified name that several schemas hold: the one the file's withSchema names, else the
  // file's own project's, else the one its path names (bench/scenarios/crypto.ts); else all.
  const pick = (candidates: Table[]): Table[] => {
    if (candidates.length <= 1) return candidates;
    const tries = [
      (t: Table) => schemasInFile.has(t.schema),
      (t: Table) => file.startsWith(t.project + '/'),
      (t: Table) => file.split(/[/.-]/).includes(t.schema),
    ];
    for (const test of tries) {
      const chosen = candidates.filter(test);
      if (chosen.length === 1) return chosen;
    }
    return candidates;
  };
  const resolve = (raw: string): Table[] => {
    const name = raw.replace(/"/g, '').trim().split(/\s+as\s+/i)[0]!.trim();
    if (name.includes('.')) {
      const t = byQualified.get(name);
      return t ? [t] : [];
    }
    return pick(byName.get(name) ?? []);
  };
  const found = new Map<string, Naming>();
  const add = (list: Table[], how: string) => {
    for (const table of list) found.set(`${qualified(table)} ${how}`, { file, table, how });
  };
  for (const m of code.matchAll(KYSELY_CALL)) {
    if (m[1] === 'withSchema') continue;
    for (const s of m[2]!.matchAll(/['"]([^'"]+)['"]/g)) add(resolve(s[1]!), `${m[1]}('${s[1]}')`);
  }
  for (const m of code.matchAll(PRISMA_CALL)) add(pick(byDelegate.get(m[1]!) ?? []), `Prisma ${m[1]}.${m[2]}`);
  for (const literal of literals) {
    for (const m of literal.matchAll(isSql ? anyCase(SQL_TABLE) : SQL_TABLE)) add(resolve(m[1]!), 'SQL text');
    for (const m of literal.matchAll(isSql ? anyCase(SQL_TRUNCATE) : SQL_TRUNCATE)) for (const name of m[1]!.split(',')) add(resolve(name), 'SQL text');
    for (const m of literal.matchAll(/\b(\w+)\.(\w+)\b/g)) {
      const t = byQualified.get(`${m[1]}.${m[2]}`);
      if (t) add([t], 'SQL text');
    }
  }
  return [...found.values()];
}

/**
 * The TypeScript, JavaScript and SQL files under `dirs` (relative to the root), generated code,
 * dependencies and migrations left out (a migration is its schema's owner's, generated from
 * its schema.prisma; a stored function's .sql file beside its module is scanned).
 */
export function sourcesUnder(root: string, dirs: string[]): string[] {
  const walk = (rel: string): string[] =>
    readdirSync(path.join(root, rel), { withFileTypes: true }).flatMap((entry) => {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) return ['node_modules', 'generated', 'dist', '.tools', 'migrations'].includes(entry.name) ? [] : walk(child);
      return /\.(ts|mts|cts|js|mjs|cjs|sql)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [child] : [];
    });
  return dirs.filter((dir) => existsSync(path.join(root, dir))).flatMap(walk);
}

export interface Violation {
  file: string;
  /** `invoicing.customers` */
  table: string;
  owner: string;
  how: string[];
}

/** Each file that names a table outside its owner's store, once per file and table. */
export function tableViolations(root: string, files: string[], tables: Table[]): Violation[] {
  const out = new Map<string, Violation>();
  for (const file of files) {
    for (const naming of tablesNamedIn(file, readFileSync(path.join(root, file), 'utf8'), tables)) {
      if (isStoreOf(file, naming.table)) continue;
      const key = `${file} → ${qualified(naming.table)}`;
      const seen = out.get(key);
      if (seen) seen.how.push(naming.how);
      else out.set(key, { file, table: qualified(naming.table), owner: ownerOf(naming.table), how: [naming.how] });
    }
  }
  return [...out.values()];
}

/** `bench/run.ts → invoicing.invoices`: a violation as the baseline lists it. */
export const violationKey = (v: Pick<Violation, 'file' | 'table'>) => `${v.file} → ${v.table}`;
