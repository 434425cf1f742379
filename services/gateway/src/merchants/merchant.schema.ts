import { Schema, type Connection, type Model } from 'mongoose';

/** A merchant (tenant). Only a hash of the API secret is kept. */
export interface MerchantRecord {
  _id: string;
  name: string;
  /** Identifies the current API secret (recorded as `paid_by_id` and in logs, never the secret). */
  api_key_id: string;
  api_secret_hash: string;
  public_key: string;
  /** Needed in clear to verify processor signatures (HMAC); never returned after creation. */
  processor_signing_secret: string;
  /** Requests per window; null means the gateway default. */
  rate_limit: number | null;
  /**
   * Key of the client address hashes services receive for this merchant (HMAC-SHA256). Made
   * with the merchant; merchants made before it get one at the gateway's start or first use.
   */
  client_address_salt?: string;
  created_at: Date;
  updated_at: Date;
}

const schema = new Schema<MerchantRecord>(
  {
    _id: { type: String, required: true },
    name: { type: String, required: true },
    api_key_id: { type: String, required: true },
    api_secret_hash: { type: String, required: true },
    public_key: { type: String, required: true },
    processor_signing_secret: { type: String, required: true },
    rate_limit: { type: Number, default: null },
    client_address_salt: { type: String },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { versionKey: false },
);
schema.index({ api_secret_hash: 1 }, { unique: true });
schema.index({ public_key: 1 }, { unique: true });

export function merchantModel(connection: Connection): Model<MerchantRecord> {
  return connection.model<MerchantRecord>('Merchant', schema, 'merchants');
}
