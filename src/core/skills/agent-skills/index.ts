/**
 * Agent Skills (the `<name>/SKILL.md` folder format read by many agent clients): the
 * conversion of org skills to and from that format, the format's reference validation
 * rules, the conversion of a foreign skill's instructions into org steps, and zip
 * packing of skill folders. Pure functions over bytes and text: no file system access.
 */
export * from './types.js';
export * from './validate.js';
export * from './metadata.js';
export * from './export.js';
export * from './import.js';
export * from './steps.js';
export * from './zip.js';
