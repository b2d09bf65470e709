/**
 * Artifacts as MCP resources: `org://artifacts/<name>` names a file on the shelf of the
 * key's node; `do` results link to them (`resource_link`) and `resources/read` with the
 * same key returns them (text for text types, base64 otherwise).
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { ResourceTemplate } from '@modelcontextprotocol/server';
import type { OrgToolBackend } from './backend.js';

const PREFIX = 'org://artifacts/';

/** The resource URI of an artifact of the key's node. */
export function artifactUri(name: string): string {
  return `${PREFIX}${encodeURIComponent(name)}`;
}

function isText(contentType: string): boolean {
  return /^text\/|[+/](json|xml|yaml|csv|markdown|javascript)\b/.test(contentType);
}

/** Registers the artifact resource template on `server`. */
export function registerArtifactResources(server: McpServer, backend: OrgToolBackend): void {
  server.registerResource(
    'artifact',
    new ResourceTemplate(`${PREFIX}{name}`, { list: undefined }),
    { title: 'Artifact', description: 'A file on the shelf of this key’s node (as linked from do results).' },
    async (uri, variables) => {
      const raw = variables.name;
      const name = decodeURIComponent(Array.isArray(raw) ? (raw[0] ?? '') : (raw ?? ''));
      const artifact = await backend.readArtifact(name);
      if (!artifact) throw new Error(`no artifact ${JSON.stringify(name)} on the shelf of node ${backend.identity.role_id}`);
      const mimeType = artifact.content_type;
      return {
        contents: [
          isText(mimeType)
            ? { uri: uri.href, mimeType, text: new TextDecoder().decode(artifact.data) }
            : { uri: uri.href, mimeType, blob: Buffer.from(artifact.data).toString('base64') },
        ],
      };
    },
  );
}
