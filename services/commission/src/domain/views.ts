/** Sales and commissions in the REST shape (and as events carry them). */
import type { CommissionEventView, CommissionView, SaleView } from '@aff/contracts';
import type { CommissionRecord, SaleRecord } from './records';

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);
const isoRequired = (d: Date) => new Date(d).toISOString();

export function toSaleView(sale: SaleRecord): SaleView {
  return {
    id: sale._id,
    currency: sale.currency,
    charged_at: isoRequired(sale.charged_at),
    invoiced_at: iso(sale.invoiced_at),
    created_at: isoRequired(sale.created_at),
    updated_at: isoRequired(sale.updated_at),
    processor_account_id: sale.processor_account_id,
    processor_charge_id: sale.processor_charge_id,
    charge_amount_cents: sale.charge_amount_cents,
    refund_amount_cents: sale.refund_amount_cents,
    tax_amount_cents: sale.tax_amount_cents,
    sale_amount_cents: sale.sale_amount_cents,
    referral: sale.referral,
    affiliate: sale.affiliate,
  };
}

export function toCommissionView(
  commission: CommissionRecord,
  expand: { campaign?: boolean; sale?: SaleRecord | null } = {},
): CommissionView {
  return {
    id: commission._id,
    created_at: isoRequired(commission.created_at),
    updated_at: isoRequired(commission.updated_at),
    amount: commission.amount,
    currency: commission.currency,
    state: commission.state,
    due_at: isoRequired(commission.due_at),
    paid_at: iso(commission.paid_at),
    voided_at: iso(commission.voided_at),
    held: commission.held ?? false,
    ...(expand.campaign ? { campaign: commission.campaign } : {}),
    ...(expand.sale ? { sale: toSaleView(expand.sale) } : {}),
  };
}

/** Events carry the commission as it is retrieved: with campaign and sale. */
export function commissionEventView(
  commission: CommissionRecord,
  sale: SaleRecord,
): CommissionEventView {
  return { ...toCommissionView(commission, { campaign: true }), sale: toSaleView(sale) };
}
