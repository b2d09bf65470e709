// ESLint flat config: typescript-eslint with type information, plus the import
// zones of DESIGN.md (core < app < server/mcp; client < cli) enforced per folder.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Builds a no-restricted-imports rule that forbids the given module patterns. */
function forbid(patterns, message) {
  return {
    'no-restricted-imports': ['error', { patterns: [{ group: patterns, message }] }],
  };
}

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'test-results/', 'web/dist/', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: forbid(
      ['**/app.js', '**/server/**', '**/mcp/**', '**/client/**', '**/cli/**', 'fastify', '@fastify/*', 'ink', 'react', '@modelcontextprotocol/*', 'commander'],
      'core is the domain: it imports node:* and its own libraries only (DESIGN.md).',
    ),
  },
  {
    files: ['src/server/**/*.ts'],
    rules: forbid(['**/mcp/**', '**/cli/**', '**/client/**', 'ink', 'react', 'commander'], 'server imports app and core only.'),
  },
  {
    // Handlers act on the scope the access layer resolved (request.scope), never on ids
    // read from the request again: that is how a second place could smuggle in another scope.
    files: ['src/server/routes/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.type='MemberExpression'][object.property.name=/^(body|query|params)$/][property.name=/^(structure_id|role_id|run_id)$/]",
          message: 'Use the resolved scope (scopeOf/nodeScopeOf/runScopeOf from server/scope.ts), not ids read from the request.',
        },
        {
          selector: "VariableDeclarator[init.type='MemberExpression'][init.property.name=/^(body|query|params)$/] > ObjectPattern > Property[key.name=/^(structure_id|role_id|run_id)$/]",
          message: 'Use the resolved scope (scopeOf/nodeScopeOf/runScopeOf from server/scope.ts), not ids read from the request.',
        },
      ],
    },
  },
  {
    files: ['src/mcp/**/*.ts'],
    // The negation keeps the MCP SDK's own `server/` modules allowed: only org's src/server is off limits.
    rules: forbid(['**/server/**', '!@modelcontextprotocol/sdk/**', '**/cli/**', 'ink', 'react', 'commander', 'fastify'], 'mcp imports app and core only.'),
  },
  {
    files: ['src/client/**/*.ts'],
    rules: forbid(['**/app.js', '**/server/**', '**/mcp/**', '**/cli/**', 'fastify', 'ink', 'react'], 'client imports core types only.'),
  },
  {
    files: ['src/app.ts'],
    rules: forbid(['./server/**', './mcp/**', './cli/**', './client/**'], 'app is the composition root of core services.'),
  },
  {
    files: ['**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
);
