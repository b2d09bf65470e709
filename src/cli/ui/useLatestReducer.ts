/**
 * A reducer whose latest state can be read at once. Ink hands every key of a fast burst
 * (Down Down Enter pasted or typed quickly) to the input handler within one render, so a
 * handler that reads the rendered state would act on the first entry; reading
 * `latest()` sees the moves already made.
 */
import { useCallback, useRef, useState } from 'react';

/** `[state, dispatch, latest]`: like `useReducer`, plus the state after every dispatch so far. */
export function useLatestReducer<S, A>(reducer: (state: S, action: A) => S, initial: S | (() => S)): [S, (action: A) => void, () => S] {
  const [state, setState] = useState(initial);
  const current = useRef(state);
  const dispatch = useCallback(
    (action: A) => {
      current.current = reducer(current.current, action);
      setState(current.current);
    },
    [reducer],
  );
  const latest = useCallback(() => current.current, []);
  return [state, dispatch, latest];
}
