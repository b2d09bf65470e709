/** The cursor of a list (pure): moves, pages, and the window of rows shown around it. */

export interface ListCursor {
  index: number;
  size: number;
}

/** Moves of a list cursor. */
export type ListMove = { type: 'up' } | { type: 'down' } | { type: 'page-up'; page: number } | { type: 'page-down'; page: number } | { type: 'home' } | { type: 'end' } | { type: 'resize'; size: number } | { type: 'set'; index: number };

const clamp = (index: number, size: number) => (size === 0 ? 0 : Math.max(0, Math.min(size - 1, index)));

/** Applies a move to a cursor. */
export function moveCursor(cursor: ListCursor, move: ListMove): ListCursor {
  switch (move.type) {
    case 'up':
      return { ...cursor, index: clamp(cursor.index - 1, cursor.size) };
    case 'down':
      return { ...cursor, index: clamp(cursor.index + 1, cursor.size) };
    case 'page-up':
      return { ...cursor, index: clamp(cursor.index - move.page, cursor.size) };
    case 'page-down':
      return { ...cursor, index: clamp(cursor.index + move.page, cursor.size) };
    case 'home':
      return { ...cursor, index: 0 };
    case 'end':
      return { ...cursor, index: clamp(cursor.size - 1, cursor.size) };
    case 'resize':
      return { size: move.size, index: clamp(cursor.index, move.size) };
    case 'set':
      return { ...cursor, index: clamp(move.index, cursor.size) };
  }
}

/** The `[start, end)` rows to show so that `index` is visible in a window of `height` rows. */
export function visibleWindow(index: number, size: number, height: number): { start: number; end: number } {
  if (size <= height) return { start: 0, end: size };
  const start = Math.max(0, Math.min(index - Math.floor(height / 2), size - height));
  return { start, end: start + height };
}
