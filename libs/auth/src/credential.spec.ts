// The credential reader only classifies; verification is elsewhere.
import { describe, expect, it } from 'vitest';
import { credentialFromHeaders } from './credential.js';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln';

describe('credentialFromHeaders', () => {
  it('reads a bearer JWT, a bearer API key and an X-Api-Key', () => {
    expect(credentialFromHeaders({ authorization: `Bearer ${JWT}` })).toEqual({ kind: 'jwt', token: JWT });
    expect(credentialFromHeaders({ authorization: 'bearer k_abc' })).toEqual({ kind: 'api-key', key: 'k_abc' });
    expect(credentialFromHeaders({ 'x-api-key': 'k_abc' })).toEqual({ kind: 'api-key', key: 'k_abc' });
  });

  it('says none when nothing is presented', () => {
    expect(credentialFromHeaders({})).toEqual({ kind: 'none' });
  });

  it('calls other schemes, empty values, repeats and two credentials malformed', () => {
    for (const headers of [
      { authorization: 'Basic dXNlcjpwYXNz' },
      { authorization: 'Bearer ' },
      { 'x-api-key': '  ' },
      { authorization: ['Bearer a', 'Bearer b'] },
      { authorization: 'Bearer k_abc', 'x-api-key': 'k_abc' },
      { 'x-api-key': 'two words' },
    ]) {
      expect(credentialFromHeaders(headers).kind).toBe('malformed');
    }
  });
});
