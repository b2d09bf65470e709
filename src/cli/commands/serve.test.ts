import { describe, expect, it } from 'vitest';
import { baseUrl, redactUrl } from './serve.js';

describe('start-up lines of org serve', () => {
  it('never print a password of the store URL or the skills remote; paths as they are', () => {
    expect(redactUrl('postgres://org:s3cret@db.internal:5432/org')).toBe('postgres://org:***@db.internal:5432/org');
    expect(redactUrl('https://bot:ghp_token@git.example.com/acme/skills.git')).toBe('https://bot:***@git.example.com/acme/skills.git');
    expect(redactUrl('/srv/org/skills.git')).toBe('/srv/org/skills.git');
    expect(redactUrl('git@github.com:acme/skills.git')).toBe('git@github.com:acme/skills.git');
  });

  it('write IPv6 hosts in brackets', () => {
    expect(baseUrl('::1', 8080)).toBe('http://[::1]:8080');
    expect(baseUrl('127.0.0.1', 0)).toBe('http://127.0.0.1:0');
  });
});
