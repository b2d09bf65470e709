/**
 * The toast queue: short confirmations at the edge of the screen, each with an optional
 * action (Undo after a delete). Pure reducer; the provider and its timers live in
 * `Toasts.tsx`.
 */

/** An action offered by a toast. */
export interface ToastAction {
  label: string;
  /** Runs the action; a rejection is shown as a new toast. */
  run: () => Promise<void>;
}

/** A toast on screen; `id` orders the queue and names it for dismissal. */
export interface Toast {
  id: number;
  message: string;
  tone: 'info' | 'success' | 'error';
  action?: ToastAction;
  /** True while its action runs. */
  busy?: boolean;
}

/** What a page asks for. */
export type ToastInput = Omit<Toast, 'id' | 'busy'>;

/** The queue, oldest first. */
export interface ToastState {
  toasts: Toast[];
  next: number;
}

/** Actions on the queue. */
export type ToastEvent =
  | { type: 'show'; toast: ToastInput }
  | { type: 'busy'; id: number }
  | { type: 'dismiss'; id: number };

/** At most this many toasts are shown; the oldest give way. */
export const MAX_TOASTS = 3;

export const initialToasts: ToastState = { toasts: [], next: 1 };

/** Applies an action. */
export function toastReducer(state: ToastState, event: ToastEvent): ToastState {
  switch (event.type) {
    case 'show': {
      const toast: Toast = { ...event.toast, id: state.next };
      return { toasts: [...state.toasts, toast].slice(-MAX_TOASTS), next: state.next + 1 };
    }
    case 'busy':
      return { ...state, toasts: state.toasts.map((toast) => (toast.id === event.id ? { ...toast, busy: true } : toast)) };
    case 'dismiss':
      return { ...state, toasts: state.toasts.filter((toast) => toast.id !== event.id) };
  }
}
