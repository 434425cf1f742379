import type { LookupAddress } from 'node:dns';
import { isPrivateAddress, literalAddress } from '../src/domain/address-policy';
import { guardedLookup } from '../src/outbound/guarded-lookup';

describe('private target policy', () => {
  it.each([
    '127.0.0.1',
    '127.5.6.7',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    'fc00::abcd',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a00:1',
    '64:ff9b::a9fe:a9fe',
    '[::1]',
    'not-an-address',
  ])('refuses %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '93.184.216.34',
    '2606:4700:4700::1111',
    '::ffff:808:808',
  ])('allows %s', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it('recognises IP literals in URL host names', () => {
    expect(literalAddress(new URL('http://[::1]:80/').hostname)).toBe('::1');
    expect(literalAddress(new URL('http://2130706433/').hostname)).toBe('127.0.0.1');
    expect(literalAddress(new URL('http://0x7f.1/').hostname)).toBe('127.0.0.1');
    expect(literalAddress('example.com')).toBeNull();
  });
});

describe('the guarded DNS lookup (checked at connect time, against DNS rebinding)', () => {
  const resolving =
    (addresses: LookupAddress[]) =>
    (_host: string, cb: (e: NodeJS.ErrnoException | null, a: LookupAddress[]) => void) =>
      cb(null, addresses);

  function lookup(addresses: LookupAddress[], all = false) {
    return new Promise<{ error: Error | null; result: unknown }>((resolve) =>
      guardedLookup(resolving(addresses))('hooks.example.com', { all }, (error, address) =>
        resolve({ error, result: address }),
      ),
    );
  }

  it('passes public addresses through, one or all as asked', async () => {
    expect(await lookup([{ address: '93.184.216.34', family: 4 }])).toEqual({
      error: null,
      result: '93.184.216.34',
    });
    const both = [
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ];
    expect((await lookup(both, true)).result).toEqual(both);
  });

  it('refuses a name when any of its addresses is private', async () => {
    const { error } = await lookup([
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ]);
    expect(error?.message).toBe(
      'Refused: hooks.example.com resolves to a private, loopback or link-local address (10.0.0.5)',
    );
  });
});
