/**
 * The OpenAPI 3.1 document of the API (`GET /api/org/openapi.json`, API.md §8), built
 * by @fastify/swagger from the route schemas. What every operation shares is decided
 * here, once: the security requirement follows the route's access rule (public and
 * signed routes need no bearer), every operation documents the 429 of the per-client
 * rate limit (it runs on every route), routes outside the API (the web UI's files) are
 * left out, and every record the core names (a schema titled `Skill`, `ChatEvent`, …)
 * becomes one entry of `components.schemas` that operations refer to, so generated
 * clients get named types.
 */
import type { SwaggerOptions } from '@fastify/swagger';
import { problems } from './schemas/common.js';
import type { AccessRule } from './types.js';

/** Paths that belong to the API document. */
function isApiPath(url: string): boolean {
  return url.startsWith('/api/org/') || url === '/mcp';
}

/** No bearer for routes anyone may call and for those authenticated by their own signature. */
function needsBearer(access: AccessRule | undefined): boolean {
  return access !== undefined && access.kind !== 'public' && access.kind !== 'signed';
}

/** A schema title that names a component: a record name such as `Skill` or `ChatEvent`. */
const COMPONENT_NAME = /^[A-Z][A-Za-z0-9]*$/;

type Json = unknown;

/**
 * Moves every schema titled with a record name into `components.schemas` and puts a
 * `$ref` in its place (inner records first, so components refer to each other). Two
 * different schemas with the same title are a programming error: it throws.
 */
export function nameComponents<T extends { paths?: Json; components?: { schemas?: Record<string, Json> } }>(document: T): T {
  const schemas: Record<string, Json> = { ...document.components?.schemas };
  const seen = new Map<string, string>();
  const visit = (node: Json): Json => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const copy = Object.fromEntries(Object.entries(node).map(([key, value]) => [key, visit(value)])) as Record<string, Json>;
    const title = copy.title;
    if (typeof title !== 'string' || !COMPONENT_NAME.test(title)) return copy;
    const json = JSON.stringify(copy);
    const known = seen.get(title);
    if (known === undefined) {
      seen.set(title, json);
      schemas[title] = copy;
    } else if (known !== json) {
      throw new Error(`two different schemas are titled ${title}: give one of them another title`);
    }
    return { $ref: `#/components/schemas/${title}` };
  };
  const paths = visit(document.paths);
  return { ...document, paths, components: { ...document.components, schemas } };
}

/** Options of @fastify/swagger for a server reporting `version`. */
export function openapiOptions(version: string): SwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'org',
        version,
        description: 'Agent workspaces: structures of agent nodes, a markdown skill library, live chat. Errors are RFC 9457 problem details.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: '/', description: 'the org instance serving this document' }],
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'a user token (org_u_…), an MCP node key (org_mcp_…) or the administrator token' },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      if (!isApiPath(url)) return { schema: { ...schema, hide: true }, url };
      const access = (route.config as { access?: AccessRule } | undefined)?.access;
      const response = { ...problems(429), ...(schema.response as object | undefined) };
      return { schema: { ...schema, response, security: needsBearer(access) ? [{ bearer: [] }] : [] }, url };
    },
    transformObject: (documentObject) => nameComponents('openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject),
  };
}
