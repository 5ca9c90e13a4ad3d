// Every derived id goes through uuidV5, so it must be exactly the uuid package's v5 (what earlier releases minted): checked against the package itself for arbitrary names, including non-ASCII ones.
import fc from 'fast-check';
import { v5 as packageV5 } from 'uuid';
import { describe, expect, it } from 'vitest';
import { IdNamespace } from './namespaces.js';
import { uuidV5, uuidV5Bytes } from './uuid-v5.js';

describe('uuidV5', () => {
  it('mints what the uuid package mints for the same name in every id namespace', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), fc.constantFrom(...Object.values(IdNamespace)), (name, namespace) => {
        expect(uuidV5(name, namespace)).toBe(packageV5(name, namespace));
        expect(uuidV5Bytes(name, namespace)).toEqual(packageV5(name, namespace, new Uint8Array(16)));
      }),
      { numRuns: 2_000 },
    );
  });

  it('mints what the package mints for names too long for the reused buffer, and for the names around its limit', () => {
    for (const length of [1_359, 1_360, 1_361, 5_000]) {
      for (const unit of ['a', 'é', '€', '😀']) {
        const name = unit.repeat(Math.ceil(length / unit.length));
        expect(uuidV5(name, IdNamespace.Intent)).toBe(packageV5(name, IdNamespace.Intent));
        expect(uuidV5Bytes(name, IdNamespace.Intent)).toEqual(packageV5(name, IdNamespace.Intent, new Uint8Array(16)));
      }
    }
  });

  it('matches the RFC 4122 example of the DNS namespace', () => {
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('refuses a namespace that is not a uuid', () => {
    expect(() => uuidV5('x', 'not-a-uuid')).toThrow(TypeError);
  });
});
