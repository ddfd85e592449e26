import { describe, expect, it } from 'vitest';
import { parseRequestTarget } from '../../../lambdas/local/request-target.ts';

describe('Function: parseRequestTarget', () => {
  it('splits an origin-form target into its path, decoded once, and its query as sent', () => {
    expect(parseRequestTarget('/v1/notes?limit=1&agent=a%20b')).toEqual({
      path: '/v1/notes',
      rawQuery: 'limit=1&agent=a%20b',
    });
    expect(parseRequestTarget('/v1/notes/caf%C3%A9')).toEqual({ path: '/v1/notes/café', rawQuery: '' });
  });

  it('decodes exactly once, so an encoded slash becomes a separator and a double-encoded one stays `%2F`', () => {
    expect(parseRequestTarget('/v1%2Fhealth')?.path).toBe('/v1/health');
    expect(parseRequestTarget('/v1/notes/a%252Fb')?.path).toBe('/v1/notes/a%2Fb');
  });

  it('keeps dot segments, encoded or not, as segments', () => {
    expect(parseRequestTarget('/v1/projects/../notes')?.path).toBe('/v1/projects/../notes');
    expect(parseRequestTarget('/v1/projects/%2e%2E/notes')?.path).toBe('/v1/projects/../notes');
    expect(parseRequestTarget('/v1/./health')?.path).toBe('/v1/./health');
  });

  it('reads the path and query of an absolute-form target (RFC 9112 §3.2.2)', () => {
    expect(parseRequestTarget('http://127.0.0.1:8787/v1/health?x=1')).toEqual({ path: '/v1/health', rawQuery: 'x=1' });
    expect(parseRequestTarget('http://localhost')).toEqual({ path: '/', rawQuery: '' });
    expect(parseRequestTarget('http://localhost/a/../b')?.path).toBe('/a/../b');
  });

  it('refuses a target that is not a URI path', () => {
    for (const target of [
      '//[/v1/health',
      'http://%zz/v1/health',
      'http://[/v1/health',
      '/v1/notes/%zz',
      '/v1/notes/%4',
      '/v1/notes/%C3%28',
      '/v1/health#fragment',
      '/v1/health?x=1#fragment',
      '/v1/a b',
      '/v1/"quoted"',
      'v1/health',
      '*',
      'localhost:8787',
      '',
    ])
      expect(parseRequestTarget(target), target).toBeUndefined();
  });
});
