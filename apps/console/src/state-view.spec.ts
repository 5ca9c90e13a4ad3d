import { describe, expect, it } from 'vitest';
import { bytesView } from './state-view.js';

describe('bytes as the key inspector shows them', () => {
  it('shows UTF-8 as text with framing control characters made visible', () => {
    expect(bytesView(new Uint8Array([0, 0, 0, 5, ...new TextEncoder().encode('{"a":1}')]))).toEqual({ bytes: 11, text: '····{"a":1}' });
  });

  it('shows bytes that are not UTF-8 as a size and a hex preview', () => {
    expect(bytesView(new Uint8Array([0xff, 0xfe, 0x00]))).toEqual({ bytes: 3, hex: 'fffe00' });
  });
});
