/**
 * The `AgentRuntime` contract (test/helpers/runtime-contract.ts) run against every
 * runtime: local, container (the example agent over real HTTP), llm (the scripted
 * OpenAI-compatible server over real HTTP) and the scripted in-memory runtime.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startContainerAgent, type ContainerAgent } from '../examples/container-agent/server.mjs';
import { createContainerRuntime } from '../src/core/runtimes/container.js';
import { runtimeContract, sampleSkill, sampleTurn } from './helpers/runtime-contract.js';
import { createLlmRuntime } from '../src/core/runtimes/llm.js';
import { createLocalRuntime } from '../src/core/runtimes/local.js';
import { createScriptedRuntime } from './helpers/scripted-runtime.js';
import type { EventInput } from '../src/core/chat/types.js';
import { startScriptedLlm, type ScriptedLlm, type ScriptedReply } from './helpers/scripted-llm.js';

let agent: ContainerAgent;
let llm: ScriptedLlm;

/** The scripted model: slow text for "slow", else one search_skills round then an answer. */
function llmScript(request: ScriptedLlm['requests'][number]): ScriptedReply {
  const { messages } = request.body;
  const user = messages.find((message) => message.role === 'user')?.content ?? '';
  if (user.includes('slow')) return { text: Array.from({ length: 40 }, (_, i) => `word${i} `), delayMs: 50 };
  if (!messages.some((message) => message.role === 'tool')) {
    return { toolCalls: [{ name: 'search_skills', arguments: ['{"query":', '"weekly report"}'] }] };
  }
  return { text: ['Here is ', 'what I found.'] };
}

beforeAll(async () => {
  agent = await startContainerAgent({ log: () => undefined });
  llm = await startScriptedLlm(llmScript);
});

afterAll(async () => {
  await agent.close();
  await llm.close();
});

const scriptedEvents = (turn: { message: string }): EventInput[] => {
  const count = turn.message === 'slow' ? 100 : 2;
  return [
    { type: 'thought', content: 'thinking' },
    ...Array.from({ length: count }, (_, i): EventInput => ({ type: 'text', content: `part ${i} ` })),
    { type: 'complete', content: { summary: 'scripted', artifacts: [] } },
  ];
};

const suites = [
  runtimeContract('local', () => createLocalRuntime({ stepDelayMs: 50 }), {
    plain: sampleTurn({ skills: [sampleSkill('weekly-report', 2)] }),
    slow: sampleTurn({ skills: [sampleSkill('long-playbook', 60)] }),
  }),
  runtimeContract('container', () => createContainerRuntime(agent.url, { connectTimeoutMs: 2000, idleTimeoutMs: 2000 }), {
    plain: sampleTurn({ message: 'hello there', skills: [sampleSkill()] }),
    slow: sampleTurn({ message: 'slow 100' }),
  }),
  runtimeContract('llm', () => createLlmRuntime({ url: llm.url, model: 'scripted-model', apiKey: 'sk-test-key', timeoutMs: 2000 }), {
    plain: sampleTurn({ message: 'write the weekly report' }),
    slow: sampleTurn({ message: 'slow please' }),
  }),
  runtimeContract('scripted', () => createScriptedRuntime(scriptedEvents, { delayMs: 20 }), {
    plain: sampleTurn({ message: 'plain' }),
    slow: sampleTurn({ message: 'slow' }),
  }),
];

for (const suite of suites) {
  describe(suite.name, () => {
    for (const contractCase of suite.cases) it(contractCase.name, contractCase.run);
  });
}
