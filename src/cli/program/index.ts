/**
 * The commands of `org`, declared cheaply: each file under program/ wires one area into
 * commander, and each action loads its runner (commands/*.ts, `run<Command>(args, deps)`)
 * only when it runs.
 */
import type { Command } from 'commander';
import { registerAgents } from './agents.js';
import { registerAudit } from './audit.js';
import { registerArtifacts } from './artifacts.js';
import { registerChat } from './chat.js';
import type { CommandContext } from './common.js';
import { registerDrafts } from './drafts.js';
import { registerKeys } from './keys.js';
import { registerServers } from './servers.js';
import { registerSetup } from './setup.js';
import { registerSharing } from './sharing.js';
import { registerSkills } from './skills.js';
import { registerStructures } from './structures.js';
import { registerWebhooks } from './webhooks.js';

export type { CommandContext } from './common.js';

/** Adds every command to `program`. */
export function registerCommands(program: Command, ctx: CommandContext): void {
  registerServers(program, ctx);
  registerSetup(program, ctx);
  registerChat(program, ctx);
  registerSkills(program, ctx);
  registerDrafts(program, ctx);
  registerStructures(program, ctx);
  registerAgents(program, ctx);
  registerArtifacts(program, ctx);
  registerKeys(program, ctx);
  registerSharing(program, ctx);
  registerWebhooks(program, ctx);
  registerAudit(program, ctx);
}
