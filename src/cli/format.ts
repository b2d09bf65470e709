/** Plain-text formatting of listings: aligned columns, short ids, JSON. */
import { excerpt as excerptText } from '../core/util/text.js';
import type { Output } from './output.js';

/** A column of a table: a header and how to read a row's cell. */
export interface Column<T> {
  header: string;
  value: (row: T) => string;
  /** Truncate cells to this width (default: no limit). */
  max?: number;
}

function clip(text: string, max?: number): string {
  const flat = text.replace(/\s+/g, ' ');
  if (!max || flat.length <= max) return flat;
  return `${flat.slice(0, max - 1)}…`;
}

/** Formats rows as left-aligned columns separated by two spaces, with a header line. */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[]): string[] {
  const cells = rows.map((row) => columns.map((column) => clip(column.value(row), column.max)));
  const widths = columns.map((column, i) => Math.max(column.header.length, ...cells.map((line) => line[i]?.length ?? 0)));
  const render = (line: string[]) =>
    line
      .map((cell, i) => (i === line.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [render(columns.map((column) => column.header.toUpperCase())), ...cells.map(render)];
}

/** Writes a table, or `empty` when there are no rows. */
export function printTable<T>(output: Output, rows: readonly T[], columns: readonly Column<T>[], empty: string): void {
  if (rows.length === 0) {
    output.out(empty);
    return;
  }
  for (const line of table(rows, columns)) output.out(line);
}

/** How a listing prints: JSON with `--json`, else a table (or `empty` when there are no rows). */
export interface ListingFormat<T> {
  json?: boolean | undefined;
  columns: readonly Column<T>[];
  empty: string;
}

/**
 * Prints the rows of a listing command: the one place where "`--json` or a table" is
 * decided, so every listing behaves the same.
 */
export function printRows<T>(output: Output, rows: readonly T[], format: ListingFormat<T>): void {
  if (format.json) printJson(output, rows);
  else printTable(output, rows, format.columns, format.empty);
}

/** Writes a value as indented JSON. */
export function printJson(output: Output, value: unknown): void {
  output.out(JSON.stringify(value, null, 2));
}

/** The first 8 characters of an id. */
export function shortId(id: string): string {
  return id.slice(0, 8);
}

/** A byte count for people: `512 B`, `3.1 KiB`, `2.0 MiB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** A one-line excerpt of any value (JSON for objects), at most `max` characters. */
export function excerpt(value: unknown, max = 80): string {
  if (typeof value === 'string') return excerptText(value, max);
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return excerptText(text, max);
}
