/**
 * The tables a statement reads, as DuckDB's own parser sees them: for the runner's check that a
 * stage reads only the tables it declares (stage.ts). A pattern over the text missed what the
 * parser does not: a comma join (`FROM a, b`), a name in quotes, a comment before a name.
 *
 * DuckDB serializes the parse of a query (`json_serialize_sql`), not of other statements, so each
 * statement's query is taken out first: the statement after `CREATE ... AS`, after `INSERT INTO
 * name (columns)`, inside `COPY (...) TO`, and a `DELETE FROM name WHERE ...` read as the query
 * `FROM name WHERE ...`. Every table the parse names is read, except the names
 * of the query's own common table expressions. A statement of another kind, or a query DuckDB
 * cannot parse, is refused: the check never lets through what it cannot see.
 */
import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';

/** Statements that read no table. */
const READS_NOTHING = new Set(['DROP', 'ALTER', 'SET', 'RESET', 'CHECKPOINT', 'BEGIN', 'COMMIT', 'ROLLBACK', 'ANALYZE']);
/** Statements that are a query as they stand. */
const QUERY = new Set(['SELECT', 'WITH', 'FROM', 'VALUES', 'TABLE', 'DESCRIBE', 'SUMMARIZE', 'SHOW', '(']);

/**
 * The tables of each query parsed so far in this process, whatever its run: a parse depends on the
 * text alone, and a process's builds (a test's, `prepare` then its stages) run the same statements
 * again. Emptied when it grows past a bound.
 */
const PARSED = new Map<string, readonly string[]>();
const PARSED_BOUND = 10_000;

export class StatementReads {
  private statement: DuckDBPreparedStatement | null = null;
  /** Parses run one at a time: they bind the one prepared statement. */
  private queue: Promise<unknown> = Promise.resolve();

  /** `parser`: a connection of its own, so that a parse never runs on a connection with a result open. */
  constructor(private readonly parser: DuckDBConnection) {}

  /** The tables and views (lower case) that `sql`, one statement or several, reads. */
  async tablesOf(sql: string): Promise<string[]> {
    const tables = new Set<string>();
    for (const query of statementQueries(sql)) for (const table of await this.tablesOfQuery(query)) tables.add(table);
    return [...tables];
  }

  /** Ends the parser's connection. */
  close(): void {
    this.statement?.destroySync();
    this.parser.disconnectSync();
  }

  private async tablesOfQuery(query: string): Promise<readonly string[]> {
    const known = PARSED.get(query);
    if (known !== undefined) return known;
    const parsed = this.queue.then(() => this.parse(query));
    this.queue = parsed.catch(() => undefined);
    const tables = await parsed;
    if (PARSED.size >= PARSED_BOUND) PARSED.clear();
    PARSED.set(query, tables);
    return tables;
  }

  private async parse(query: string): Promise<string[]> {
    // Prepared once: a parse then costs about half of a query's.
    this.statement ??= await this.parser.prepare('SELECT json_serialize_sql($1::VARCHAR) AS tree');
    this.statement.bindVarchar(1, query);
    const reader = await this.statement.runAndReadAll();
    const tree = JSON.parse(String(reader.getRowObjectsJS()[0]!.tree)) as { error: boolean; error_message?: string };
    if (tree.error) throw new Error(`DuckDB cannot parse the query (${tree.error_message}): ${shortened(query)}`);
    const found = new Set<string>();
    collectTables(tree, new Set(), found);
    return [...found];
  }
}

/** Every table a parse tree names, but the common table expressions in scope where they are named. */
function collectTables(node: unknown, named: ReadonlySet<string>, found: Set<string>): void {
  if (Array.isArray(node)) {
    for (const child of node) collectTables(child, named, found);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const record = node as Record<string, unknown>;
  let scope = named;
  const ctes = (record.cte_map as { map?: { key: string }[] } | undefined)?.map;
  if (ctes && ctes.length > 0) scope = new Set([...named, ...ctes.map((cte) => cte.key.toLowerCase())]);
  if (record.type === 'BASE_TABLE' && typeof record.table_name === 'string' && record.table_name !== '') {
    const table = record.table_name.toLowerCase();
    if (!scope.has(table)) found.add(table);
  }
  for (const value of Object.values(record)) collectTables(value, scope, found);
}

interface Token {
  /** A word upper-cased, a quoted name as written, or one character (`(`, `)`, `;`, `.`, an operator's). */
  text: string;
  start: number;
  end: number;
  /** Parentheses open around the token (for `(`, before it). */
  depth: number;
}

/** The queries inside `sql`'s statements, each to be parsed on its own; an error for a statement of an unknown kind. */
function statementQueries(sql: string): string[] {
  const queries: string[] = [];
  const tokens = tokenize(sql);
  let first = 0;
  for (let i = 0; i <= tokens.length; i++) {
    if (i < tokens.length && !(tokens[i]!.text === ';' && tokens[i]!.depth === 0)) continue;
    const statement = tokens.slice(first, i);
    if (statement.length > 0) queries.push(...queriesOf(sql, statement));
    first = i + 1;
  }
  return queries;
}

function queriesOf(sql: string, tokens: Token[]): string[] {
  const head = tokens[0]!.text;
  const end = tokens.at(-1)!.end;
  const rest = (token: Token) => sql.slice(token.start, end);
  if (QUERY.has(head)) return [rest(tokens[0]!)];
  if (READS_NOTHING.has(head)) return [];
  if (head === 'CREATE') {
    // The query follows the first AS outside parentheses (a column list may hold other words).
    const as = tokens.findIndex((token) => token.text === 'AS' && token.depth === 0);
    if (as < 0) return [];
    return as + 1 < tokens.length ? [rest(tokens[as + 1]!)] : unknown(sql, tokens);
  }
  if (head === 'INSERT') {
    let k = tokens.findIndex((token) => token.text === 'INTO' && token.depth === 0) + 1;
    if (k === 0) return unknown(sql, tokens);
    // The table's name, qualified or not.
    k++;
    while (tokens[k]?.text === '.') k += 2;
    // A column list, unless the parenthesis opens the query itself.
    if (tokens[k]?.text === '(' && !QUERY.has(tokens[k + 1]?.text ?? '')) k = closing(tokens, k) + 1;
    if (tokens[k]?.text === 'BY') k += 2;
    if (tokens[k]?.text === 'DEFAULT') return [];
    return k < tokens.length ? [rest(tokens[k]!)] : unknown(sql, tokens);
  }
  if (head === 'COPY') {
    if (tokens[1]?.text === '(') {
      const close = closing(tokens, 1);
      return [sql.slice(tokens[2]!.start, tokens[close]!.start)];
    }
    // COPY name FROM 'file' fills a table; COPY name TO 'file' reads it.
    const to = tokens.findIndex((token) => token.depth === 0 && (token.text === 'TO' || token.text === 'FROM'));
    if (to < 0) return unknown(sql, tokens);
    return tokens[to]!.text === 'FROM' ? [] : [`FROM ${sql.slice(tokens[1]!.start, tokens[to]!.start)}`];
  }
  if (head === 'DELETE') {
    // DELETE FROM name [WHERE ...] reads what `FROM name [WHERE ...]`, a query, reads.
    if (tokens[1]?.text !== 'FROM' || tokens.some((token) => token.text === 'USING' && token.depth === 0)) return unknown(sql, tokens);
    return [rest(tokens[1]!)];
  }
  return unknown(sql, tokens);
}

function unknown(sql: string, tokens: Token[]): never {
  throw new Error(`a statement the reads check cannot read: ${shortened(sql.slice(tokens[0]!.start, tokens.at(-1)!.end))}`);
}

/** The index of the `)` that closes the `(` at `open`. */
function closing(tokens: Token[], open: number): number {
  const depth = tokens[open]!.depth;
  for (let k = open + 1; k < tokens.length; k++) if (tokens[k]!.text === ')' && tokens[k]!.depth === depth) return k;
  return tokens.length - 1;
}

/**
 * Words, parentheses, `;` and `.` of `sql`, with string literals, quoted names' quotes, dollar-quoted
 * strings and comments left out (a `;` or `(` inside them is not one).
 */
function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let depth = 0;
  let i = 0;
  while (i < sql.length) {
    const character = sql[i]!;
    const start = i;
    if (/\s/.test(character)) {
      i++;
    } else if (character === '-' && sql[i + 1] === '-') {
      while (i < sql.length && sql[i] !== '\n') i++;
    } else if (character === '/' && sql[i + 1] === '*') {
      const close = sql.indexOf('*/', i + 2);
      i = close < 0 ? sql.length : close + 2;
    } else if (character === "'" || character === '"') {
      // A quote inside is written twice.
      i++;
      while (i < sql.length && !(sql[i] === character && sql[i + 1] !== character)) i += sql[i] === character ? 2 : 1;
      i++;
      // A quoted name is a name, never a keyword: its token keeps its quote.
      if (character === '"') tokens.push({ text: sql.slice(start, i), start, end: i, depth });
    } else if (character === '$' && /^\$[A-Za-z_]*\$/.test(sql.slice(i, i + 64))) {
      const tag = /^\$[A-Za-z_]*\$/.exec(sql.slice(i, i + 64))![0];
      const close = sql.indexOf(tag, i + tag.length);
      i = close < 0 ? sql.length : close + tag.length;
    } else if (/[A-Za-z_]/.test(character)) {
      while (i < sql.length && /[A-Za-z0-9_$]/.test(sql[i]!)) i++;
      tokens.push({ text: sql.slice(start, i).toUpperCase(), start, end: i, depth });
    } else if (character === '(') {
      tokens.push({ text: '(', start, end: ++i, depth: depth++ });
    } else if (character === ')') {
      tokens.push({ text: ')', start, end: ++i, depth: --depth });
    } else if (character === ';' || character === '.') {
      tokens.push({ text: character, start, end: ++i, depth });
    } else {
      // An operator, a number or a parameter's `$`: the end of the statement is the last token's.
      i++;
      tokens.push({ text: character, start, end: i, depth });
    }
  }
  return tokens;
}

function shortened(sql: string): string {
  const line = sql.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 117)}...` : line;
}
