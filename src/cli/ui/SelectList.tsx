/** A keyboard-driven pick list: ↑/↓ (or k/j) to move, Enter to choose; long lists scroll. */
import { Box, Text } from 'ink';
import { useKeys } from './keyboard.js';
import { perKey } from './keys.js';
import { moveCursor, visibleWindow, type ListCursor, type ListMove } from './list.js';
import { useLatestReducer } from './useLatestReducer.js';

/** One choice. */
export interface SelectItem<T> {
  label: string;
  /** Dimmed text after the label. */
  hint?: string;
  value: T;
}

/** Props of {@link SelectList}. */
export interface SelectListProps<T> {
  title: string;
  items: readonly SelectItem<T>[];
  onSelect: (value: T) => void;
  /** Rows shown at once (default 10). */
  height?: number;
  isActive?: boolean;
}

const cursorReducer = (state: ListCursor, action: ListMove) => moveCursor(state, action);

/** A pick list. Keys typed in a burst all count: Enter picks where the moves before it led. */
export function SelectList<T>({ title, items, onSelect, height = 10, isActive = true }: SelectListProps<T>) {
  const [cursor, move, latest] = useLatestReducer(cursorReducer, { index: 0, size: items.length });
  const sized = (state: ListCursor) => (state.size === items.length ? state : moveCursor(state, { type: 'resize', size: items.length }));
  const current = sized(cursor);
  useKeys(
    perKey((input, key) => {
      if (latest().size !== items.length) move({ type: 'resize', size: items.length });
      if (key.upArrow || input === 'k') move({ type: 'up' });
      else if (key.downArrow || input === 'j') move({ type: 'down' });
      else if (key.pageUp) move({ type: 'page-up', page: height });
      else if (key.pageDown) move({ type: 'page-down', page: height });
      else if (key.return) {
        const item = items[sized(latest()).index];
        if (item) onSelect(item.value);
      }
    }),
    { isActive },
  );
  const { start, end } = visibleWindow(current.index, items.length, height);
  return (
    <Box flexDirection="column">
      <Text bold>{title}</Text>
      {start > 0 ? <Text dimColor>  ↑ {start} more</Text> : null}
      {items.slice(start, end).map((item, offset) => {
        const selected = start + offset === current.index;
        return (
          <Text key={start + offset} {...(selected ? { color: 'cyan' } : {})}>
            {selected ? '❯ ' : '  '}
            {item.label}
            {item.hint ? <Text dimColor>  {item.hint}</Text> : null}
          </Text>
        );
      })}
      {end < items.length ? <Text dimColor>  ↓ {items.length - end} more</Text> : null}
      <Text dimColor>↑/↓ to move, Enter to choose</Text>
    </Box>
  );
}
