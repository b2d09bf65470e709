/**
 * Keyboard input through one subscription, with handlers that are current as soon as the
 * screen is.
 *
 * Ink's `useInput` subscribes a component's handler in a passive effect, which runs some
 * time after the new screen has been written. A key pressed in between (by a fast typist,
 * a paste, or a person answering the screen they just saw while the machine is busy)
 * reaches the handler of the previous render (a list that has since changed, a line
 * shorter than the one shown) or no handler at all. Here the app subscribes once, in
 * {@link KeyboardRoot}, and components register with {@link useKeys} in layout effects,
 * which React runs in the same commit that writes the screen: no key can arrive between a
 * screen and its handlers.
 *
 * @example
 * render(<KeyboardRoot><App /></KeyboardRoot>);
 * function App() { useKeys((input, key) => { if (key.return) submit(); }); … }
 */
import { useInput, type Key } from 'ink';
import { createContext, useContext, useLayoutEffect, useRef, type ReactNode } from 'react';

/** A keypress handler, as Ink's `useInput` takes. */
export type KeyHandler = (input: string, key: Key) => void;

/** A registered handler; the box lets a re-render swap the function in place. */
interface Registration {
  current: KeyHandler;
}

const Keyboard = createContext<Set<Registration> | null>(null);

/** Reads the keyboard once for everything below it, handing each key to every active {@link useKeys} handler in mount order. */
export function KeyboardRoot({ children }: { children: ReactNode }) {
  const handlers = useRef(new Set<Registration>()).current;
  useInput((input, key) => {
    for (const handler of [...handlers]) handler.current(input, key);
  });
  return <Keyboard.Provider value={handlers}>{children}</Keyboard.Provider>;
}

/** Handles keys while `isActive` (default true), always with the handler of the latest render. Needs a {@link KeyboardRoot} above. */
export function useKeys(handler: KeyHandler, { isActive = true }: { isActive?: boolean } = {}): void {
  const handlers = useContext(Keyboard);
  if (!handlers) throw new Error('useKeys needs a <KeyboardRoot> above it');
  const registration = useRef<Registration>({ current: handler }).current;
  useLayoutEffect(() => {
    registration.current = handler;
  });
  useLayoutEffect(() => {
    if (!isActive) return;
    handlers.add(registration);
    return () => {
      handlers.delete(registration);
    };
  }, [handlers, registration, isActive]);
}
