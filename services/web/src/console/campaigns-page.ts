/**
 * Campaigns (`/console/campaigns`): the list (listCampaigns, paged from its envelope), a new
 * campaign (createCampaign) and one campaign's page with its settings and fraud policy
 * (getCampaign, updateCampaign): the REST API's operations, so `campaign.created` and
 * `campaign.updated` and their webhooks fire as with the API. A refused form (422) comes back
 * with the service's messages and what was typed.
 */
import express, { type Response, type Router } from 'express';
import { formatMoney } from '@aff/api';
import type { CampaignView } from '@aff/contracts';
import { html, type SafeHtml } from '../portal/html';
import { date } from '../portal/page-parts';
import { actionToken } from './console-act';
import {
  campaignBody,
  campaignForm,
  typedValues,
  valuesOf,
  type CampaignFormValues,
} from './campaign-form';
import {
  dataTable,
  readListQuery,
  rules,
  type Column,
  type ListSpec,
} from './components/data-table';
import { consoleCalls, ConsoleReplyError } from './console-data';
import { consolePage, message, ownerAction } from './console-http';
import type { PageDeps } from './console-pages';

const LIST: ListSpec = { path: '/console/campaigns', filters: {}, fixedOrder: '-created_at' };
const isId = rules.id();
// The form has 18 fields; the console's shared parser allows 20 parameters, this one a few more.
const formBody = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 30 });

const DONE: Record<string, string> = {
  created: 'Campaign created.',
  updated: 'Campaign saved.',
};

export function campaignsRoutes({ rpc, once }: PageDeps): Router {
  const router = express.Router();

  router.get('/console/campaigns', async (req, res) => {
    const q = readListQuery(LIST, req.query);
    const list = await consoleCalls(rpc, res).call('listCampaigns', {
      query: { page: String(q.page), limit: '25' },
    });
    const csrf = actionToken(res);
    consolePage(
      res,
      200,
      'Campaigns',
      html`${listSection(
        dataTable({
          label: 'Campaigns',
          query: q,
          columns: COLUMNS,
          rows: list.data,
          empty: 'No campaigns yet.',
          pagination: list.pagination,
        }),
      )}
      ${csrf ? newSection(csrf, valuesOf(undefined)) : ''}`,
    );
  });

  router.get('/console/campaigns/:id', async (req, res) => {
    const id = isId(String(req.params.id));
    const campaign = id ? await find(rpc, res, id) : null;
    if (!id || !campaign) return notFound(res);
    // Own keys only: `?done=constructor` must not reach Object.prototype.
    const key = String(req.query.done);
    const done = Object.hasOwn(DONE, key) ? DONE[key] : undefined;
    editPage(res, 200, campaign, valuesOf(campaign), [], done);
  });

  router.post('/console/campaigns', ...ownerAction(formBody, once), async (req, res) => {
    const values = typedValues(req.body);
    try {
      const created = await consoleCalls(rpc, res).call('createCampaign', {
        body: campaignBody(values),
      });
      res.redirect(303, `/console/campaigns/${created.id}?done=created`);
    } catch (error) {
      if (!(error instanceof ConsoleReplyError) || error.status !== 422) throw error;
      consolePage(
        res,
        422,
        'New campaign',
        newSection(actionToken(res)!, values, [error.message, ...error.details]),
      );
    }
  });

  router.post('/console/campaigns/:id', ...ownerAction(formBody, once), async (req, res) => {
    const id = isId(String(req.params.id));
    const campaign = id ? await find(rpc, res, id) : null;
    if (!id || !campaign) return notFound(res);
    const values = typedValues(req.body);
    try {
      await consoleCalls(rpc, res).call('updateCampaign', {
        params: { id },
        body: campaignBody(values),
      });
      res.redirect(303, `/console/campaigns/${id}?done=updated`);
    } catch (error) {
      if (!(error instanceof ConsoleReplyError) || error.status !== 422) throw error;
      editPage(res, 422, campaign, values, [error.message, ...error.details]);
    }
  });
  return router;
}

async function find(rpc: PageDeps['rpc'], res: Response, id: string) {
  return consoleCalls(rpc, res)
    .call('getCampaign', { params: { id } })
    .catch((error: unknown) => {
      if (error instanceof ConsoleReplyError && error.status === 404) return null;
      throw error;
    });
}

function notFound(res: Response) {
  consolePage(res, 404, 'Not found', message('Not found', 'There is no such campaign.'));
}

const reward = (c: CampaignView) =>
  c.reward_type === 'percent'
    ? `${c.commission_percent ?? 0} %`
    : formatMoney(c.commission_amount_cents ?? 0, c.commission_amount_currency ?? 'USD');

const COLUMNS: Column<CampaignView>[] = [
  {
    header: 'Name',
    cell: (c) =>
      html`<a href="/console/campaigns/${c.id}">${c.name}</a>${
          c.default ? html` <span class="state">default</span>` : ''
        }`,
  },
  { header: 'Reward', cell: reward },
  { header: 'Due after (days)', num: true, cell: (c) => c.days_until_commissions_are_due },
  {
    header: 'Fraud policy',
    cell: (c) =>
      Object.entries(c.fraud_policy ?? {})
        .filter(([, action]) => action !== 'flag')
        .map(([type, action]) => `${type}: ${action}`)
        .join(', ') || 'flag all',
  },
  { header: 'Created', sortKey: 'created_at', cell: (c) => date(c.created_at) },
];

const listSection = (table: SafeHtml) =>
  html`<section aria-labelledby="campaigns-h">
    <h2 id="campaigns-h">Campaigns</h2>
    ${table}
  </section>`;

function newSection(csrf: string, values: CampaignFormValues, errors: string[] = []) {
  return html`<section aria-labelledby="new-h">
    <h2 id="new-h">New campaign</h2>
    ${campaignForm({ action: '/console/campaigns', submit: 'Create campaign', values, csrf, errors })}
  </section>`;
}

function editPage(
  res: Response,
  status: number,
  c: CampaignView,
  values: CampaignFormValues,
  errors: string[],
  done?: string,
) {
  const csrf = actionToken(res);
  consolePage(
    res,
    status,
    c.name,
    html`${done ? html`<p class="notice" role="status">${done}</p>` : ''}
      <section aria-labelledby="campaign-h">
        <h2 id="campaign-h">${c.name}${c.default ? ' (default campaign)' : ''}</h2>
        <p><a href="/console/campaigns">All campaigns</a> · Created ${date(c.created_at)}</p>
        ${
          csrf
            ? campaignForm({
                action: `/console/campaigns/${c.id}`,
                submit: 'Save',
                values,
                csrf,
                errors,
              })
            : html`<dl class="facts">
                <dt>Reward</dt>
                <dd>${reward(c)}</dd>
                <dt>Landing page</dt>
                <dd class="url">${c.url}</dd>
                <dt>Due after</dt>
                <dd>${c.days_until_commissions_are_due} days</dd>
                ${Object.entries(c.fraud_policy ?? {}).map(
                  ([type, action]) =>
                    html`<dt>${type}</dt>
                      <dd>${action}</dd>`,
                )}
              </dl>`
        }
      </section>`,
  );
}
