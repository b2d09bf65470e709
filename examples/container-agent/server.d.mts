/** Types of the example container agent (server.mjs), for TypeScript callers such as org's tests. */

/** Options of `startContainerAgent`. */
export interface ContainerAgentOptions {
  /** Port to listen on (default 0: a free port). */
  port?: number;
  /** Host to listen on (default 127.0.0.1). */
  host?: string;
  /** Pause between keepalive comments of the `keepalive` behaviour, in ms (default 100). */
  pauseMs?: number;
  /** Receives log lines such as "container-agent: client closed (run …)" (default: stdout). */
  log?: (line: string) => void;
}

/** A running example agent. */
export interface ContainerAgent {
  /** Base URL, e.g. http://127.0.0.1:41234 (the turn endpoint is `${url}/turn`). */
  url: string;
  port: number;
  /** Stops listening and closes every open connection. */
  close(): Promise<void>;
}

/** Starts the example agent in this process. */
export function startContainerAgent(options?: ContainerAgentOptions): Promise<ContainerAgent>;
