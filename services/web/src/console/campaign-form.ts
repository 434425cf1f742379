/**
 * The campaign form (create and edit): the REST API's campaign fields and the fraud policy, read
 * back into the body `createCampaign` / `updateCampaign` take. The services check the values
 * (422 with their messages, shown above the form with what was typed kept); this only picks the
 * known fields. A blank field is left out: it keeps the current value (or the default).
 */
import {
  FRAUD_ACTIONS,
  FRAUD_SIGNAL_TYPES,
  DEFAULT_FRAUD_POLICY,
  type CampaignView,
} from '@aff/contracts';
import { html, type SafeHtml } from '../portal/html';
import { formFields } from './components/form-fields';

const FIELDS = [
  ['name', 'Name', 'text', ''],
  ['url', 'Landing page URL', 'url', 'where links send visitors'],
  ['commission_percent', 'Commission percent', 'number', 'for percent rewards'],
  ['commission_amount_cents', 'Commission amount (cents)', 'number', 'for amount rewards'],
  ['commission_amount_currency', 'Amount currency', 'text', 'ISO code, e.g. USD'],
  ['minimum_payout_cents', 'Minimum payout (cents)', 'number', ''],
  ['days_until_commissions_are_due', 'Days until commissions are due', 'number', ''],
  ['days_before_referrals_expire', 'Days before referrals expire', 'number', ''],
  ['max_commission_period_months', 'Commission period (months)', 'number', 'blank: no limit'],
  ['max_commissions', 'Commissions per referral', 'number', 'blank: no limit'],
  ['ip_velocity_limit', 'Leads per address in 24 h before ip_velocity', 'number', ''],
] as const;

export type CampaignFormValues = Record<string, string>;

/** What the form shows for a campaign (or, after a refusal, what was typed). */
export function valuesOf(c: CampaignView | undefined): CampaignFormValues {
  const values: CampaignFormValues = { reward_type: c?.reward_type ?? 'percent' };
  for (const [key] of FIELDS) {
    const v = c?.[key as keyof CampaignView];
    if (v !== null && v !== undefined) values[key] = String(v);
  }
  const policy = c?.fraud_policy ?? DEFAULT_FRAUD_POLICY;
  for (const type of FRAUD_SIGNAL_TYPES) values[`fraud_${type}`] = policy[type];
  return values;
}

/** The posted form's known fields, as typed (strings). */
export function typedValues(body: unknown): CampaignFormValues {
  const sent = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const keys = [
    'reward_type',
    ...FIELDS.map(([k]) => k),
    ...FRAUD_SIGNAL_TYPES.map((t) => `fraud_${t}`),
  ];
  const values: CampaignFormValues = {};
  for (const key of keys)
    if (typeof sent[key] === 'string') values[key] = sent[key].trim().slice(0, 2048);
  return values;
}

/** The operation's body: blank fields left out, the policy as the API's nested object. */
export function campaignBody(values: CampaignFormValues): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const key of ['reward_type', ...FIELDS.map(([k]) => k)])
    if (values[key]) body[key] = values[key];
  const policy: Record<string, string> = {};
  for (const type of FRAUD_SIGNAL_TYPES) {
    const action = values[`fraud_${type}`];
    if (action) policy[type] = action;
  }
  if (Object.keys(policy).length) body.fraud_policy = policy;
  return body;
}

export function campaignForm(opts: {
  action: string;
  submit: string;
  values: CampaignFormValues;
  csrf: string;
  errors?: string[];
}): SafeHtml {
  const v = opts.values;
  const field = ([key, label, type, hint]: (typeof FIELDS)[number]) =>
    html`<label for="f-${key}"
      >${label} ${hint ? html`<span class="hint">(${hint})</span>` : ''}
      <input
        id="f-${key}"
        name="${key}"
        type="${type}"
        ${type === 'number' ? html`step="any" inputmode="decimal"` : ''}
        value="${v[key] ?? ''}"
        ${key === 'name' ? html`required` : ''}
    /></label>`;
  return html`${
      opts.errors?.length
        ? html`<div class="error" role="alert">
            <p>The campaign was not saved:</p>
            <ul>
              ${opts.errors.map((e) => html`<li>${e}</li>`)}
            </ul>
          </div>`
        : ''
    }
    <form class="edit" method="post" action="${opts.action}">
      ${formFields(opts.csrf)}
      <div class="grid">
        ${field(FIELDS[0])} ${field(FIELDS[1])}
        <label for="f-reward_type"
          >Reward type
          <select id="f-reward_type" name="reward_type">
            ${(['percent', 'amount'] as const).map(
              (t) =>
                html`<option value="${t}" ${v.reward_type === t ? html`selected` : ''}>
                  ${t === 'percent' ? 'Percent of the sale' : 'Fixed amount'}
                </option>`,
            )}
          </select></label
        >
        ${FIELDS.slice(2).map(field)}
      </div>
      <fieldset>
        <legend>Fraud policy: what each signal does to a referral</legend>
        <div class="grid">
          ${FRAUD_SIGNAL_TYPES.map(
            (type) =>
              html`<label for="f-fraud_${type}"
                >${type}
                <select id="f-fraud_${type}" name="fraud_${type}">
                  ${FRAUD_ACTIONS.map(
                    (a) =>
                      html`<option value="${a}" ${v[`fraud_${type}`] === a ? html`selected` : ''}>
                        ${a}
                      </option>`,
                  )}
                </select></label
              >`,
          )}
        </div>
      </fieldset>
      <button type="submit">${opts.submit}</button>
    </form>`;
}
