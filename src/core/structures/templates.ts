/**
 * Structure templates: JSON files in the package's `templates/` folder, each a tree of
 * nodes. Loaded and validated once at start-up, so a broken template fails the start,
 * not the first request.
 */
import { readFile, readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { invalid } from '../errors.js';
import { isRoleId } from '../util/index.js';

/** One node of a template; `parent` is the role_id of an earlier node or null for the root. */
export interface TemplateNode {
  role_id: string;
  label: string;
  parent: string | null;
  x: number;
  y: number;
  starting_context: string;
}

/** A structure template. */
export interface Template {
  name: string;
  description: string;
  nodes: TemplateNode[];
}

/** The template names of the contract (API.md §5). */
export const TEMPLATE_NAMES = ['exec-team', 'sales-team', 'research-lab', 'personal', 'blank'] as const;

/** Checks one template; returns a list of problems (empty when valid). */
export function checkTemplate(template: Template): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  let roots = 0;
  for (const [index, node] of (template.nodes ?? []).entries()) {
    const at = `nodes[${index}]`;
    if (typeof node.role_id !== 'string' || !isRoleId(node.role_id)) problems.push(`${at}.role_id is not a valid role id`);
    if (seen.has(node.role_id)) problems.push(`${at}.role_id ${node.role_id} is repeated`);
    if (typeof node.label !== 'string' || node.label.length === 0) problems.push(`${at}.label is missing`);
    if (typeof node.x !== 'number' || typeof node.y !== 'number') problems.push(`${at} needs numeric x and y`);
    if (typeof node.starting_context !== 'string') problems.push(`${at}.starting_context is missing`);
    if (node.parent === null) roots++;
    else if (!seen.has(node.parent)) problems.push(`${at}.parent ${node.parent} is not an earlier node`);
    seen.add(node.role_id);
  }
  if ((template.nodes ?? []).length > 0 && roots !== 1) problems.push(`a template has exactly one root, found ${roots}`);
  return problems;
}

/** Loads every `*.json` template of `dir`; throws naming the file and problem when one is invalid. */
export async function loadTemplates(dir: string): Promise<Map<string, Template>> {
  const templates = new Map<string, Template>();
  for (const file of (await readdir(dir)).filter((name) => name.endsWith('.json')).sort()) {
    const name = basename(file, '.json');
    const template = JSON.parse(await readFile(join(dir, file), 'utf8')) as Template;
    template.name = name;
    const problems = checkTemplate(template);
    if (problems.length > 0) throw invalid(`template ${file}: ${problems.join('; ')}`);
    templates.set(name, template);
  }
  for (const required of TEMPLATE_NAMES) {
    if (!templates.has(required)) throw invalid(`template ${required}.json is missing from ${dir}`);
  }
  return templates;
}
