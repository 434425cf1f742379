import { z } from 'zod';
import {
  affiliateViewSchema,
  createAffiliateBodySchema,
  createCampaignBodySchema,
  updateAffiliateBodySchema,
  validate,
} from '../src';

describe('createAffiliateBodySchema', () => {
  it('reports each blank required field in the spec style', () => {
    expect(validate(createAffiliateBodySchema, {})).toEqual({
      ok: false,
      details: ["First name can't be blank", "Last name can't be blank", "Email can't be blank"],
    });
  });

  it('normalises e-mail and form booleans, and keeps absent optionals absent', () => {
    const result = validate(createAffiliateBodySchema, {
      first_name: ' Jane ',
      last_name: 'Doe',
      email: ' Jane@Example.COM ',
      receive_new_commission_notifications: '0',
      wallet_a_email: '',
    });
    expect(result).toEqual({
      ok: true,
      value: {
        first_name: 'Jane',
        last_name: 'Doe',
        email: 'jane@example.com',
        receive_new_commission_notifications: false,
        wallet_a_email: null,
      },
    });
  });

  it.each([
    [{ token: 'a b' }, 'Token may only contain letters, numbers and dashes'],
    [{ token: 'x'.repeat(65) }, 'Token is too long (maximum is 64 characters)'],
    [{ state: 'gone' }, 'State is not included in the list'],
    [
      { receive_new_commission_notifications: 'maybe' },
      'Receive new commission notifications must be true or false',
    ],
    [{ wallet_b_email: 'nope' }, 'Wallet b email is invalid'],
    [{ first_name: ['a'] }, 'First name is invalid'],
  ])('rejects %p', (extra, message) => {
    const result = validate(createAffiliateBodySchema, {
      first_name: 'A',
      last_name: 'B',
      email: 'a@b.co',
      ...extra,
    });
    expect(result).toEqual({ ok: false, details: [message] });
  });

  it('rejects a body that is not an object', () => {
    expect(validate(createAffiliateBodySchema, [1])).toEqual({
      ok: false,
      details: ['Request body must be an object'],
    });
  });
});

describe('updateAffiliateBodySchema', () => {
  it('allows absent required fields but not blank ones', () => {
    expect(validate(updateAffiliateBodySchema, {})).toEqual({ ok: true, value: {} });
    expect(validate(updateAffiliateBodySchema, { last_name: ' ' })).toEqual({
      ok: false,
      details: ["Last name can't be blank"],
    });
  });
});

describe('createCampaignBodySchema', () => {
  it('coerces numbers from forms and checks ranges', () => {
    expect(
      validate(createCampaignBodySchema, {
        name: 'C',
        commission_percent: '12.5',
        max_commissions: '',
      }),
    ).toEqual({
      ok: true,
      value: { name: 'C', commission_percent: 12.5, max_commissions: null },
    });
    expect(validate(createCampaignBodySchema, { name: 'C', minimum_payout_cents: '1.5' })).toEqual({
      ok: false,
      details: ['Minimum payout cents must be an integer'],
    });
  });
});

describe('JSON Schema output', () => {
  it('can describe request and response schemas for an OpenAPI document', () => {
    const request = z.toJSONSchema(createAffiliateBodySchema, {
      io: 'input',
      unrepresentable: 'any',
    }) as {
      properties: Record<string, unknown>;
    };
    expect(Object.keys(request.properties)).toEqual(
      expect.arrayContaining(['first_name', 'email', 'token']),
    );
    const response = z.toJSONSchema(affiliateViewSchema) as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(response.required).toEqual(expect.arrayContaining(['id', 'email', 'visitors']));
  });
});
