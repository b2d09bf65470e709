// Writes dist/bundled-skills.json: the skills the package ships (what git tracks in
// skills/, or the folder's files outside a git checkout), which new homes are given.
// A file that a server or a person left in the package's skills/ is no bundled skill.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = join(import.meta.dirname, '..');
const { writeBundledManifest } = await import(pathToFileURL(join(root, 'dist', 'core', 'skills', 'bundled.js')).href);
const skills = await writeBundledManifest(root);
console.log(`bundled skills: ${skills.length} written to dist/bundled-skills.json`);
