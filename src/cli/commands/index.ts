/**
 * The client commands of `org`: each file exports its runners (`run<Command>(args, deps)`)
 * and a `register*` function that wires them into commander. `serve` and `mcp` are
 * wired in main.ts since they run things in-process.
 */
import type { Command } from 'commander';
import { registerAgents } from './agents.js';
import { registerChat } from './chat.js';
import type { CommandContext } from './common.js';
import { registerDrafts } from './drafts.js';
import { registerInit } from './init.js';
import { registerKeys } from './keys.js';
import { registerLogin } from './login.js';
import { registerSharing } from './sharing.js';
import { registerSkills } from './skills.js';
import { registerStructures } from './structures.js';

export type { CommandContext } from './common.js';

/** Adds every client command to `program`. */
export function registerClientCommands(program: Command, ctx: CommandContext): void {
  registerLogin(program, ctx);
  registerInit(program, ctx);
  registerChat(program, ctx);
  registerSkills(program, ctx);
  registerDrafts(program, ctx);
  registerStructures(program, ctx);
  registerAgents(program, ctx);
  registerKeys(program, ctx);
  registerSharing(program, ctx);
}
