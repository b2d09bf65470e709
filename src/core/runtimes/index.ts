/** Agent runtimes: the interface and the local, container and LLM implementations. */
export * from './container.js';
export * from './llm.js';
export { LLM_TOOLS, guessContentType, type FunctionTool } from './llm-tools.js';
export { systemPrompt, userPrompt } from './llm-prompt.js';
export * from './local.js';
export * from './types.js';
