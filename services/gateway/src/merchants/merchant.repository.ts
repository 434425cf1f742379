import { randomUUID } from 'node:crypto';
import type { Model } from 'mongoose';
import type { MerchantRecord } from './merchant.schema';
import { newAddressSalt } from '../http/client-address';
import {
  hashSecret,
  issueApiSecret,
  issueCredentials,
  type IssuedCredentials,
} from './credentials';

export interface CreatedMerchant {
  merchant: MerchantRecord;
  credentials: IssuedCredentials;
}

export class MerchantRepository {
  constructor(private readonly model: Model<MerchantRecord>) {}

  async create(name: string, rateLimit: number | null): Promise<CreatedMerchant> {
    const credentials = issueCredentials();
    const now = new Date();
    const merchant: MerchantRecord = {
      _id: randomUUID(),
      name,
      api_key_id: randomUUID(),
      api_secret_hash: hashSecret(credentials.apiSecret),
      public_key: credentials.publicKey,
      processor_signing_secret: credentials.processorSigningSecret,
      rate_limit: rateLimit,
      client_address_salt: newAddressSalt(),
      created_at: now,
      updated_at: now,
    };
    await this.model.create(merchant);
    return { merchant, credentials };
  }

  async findBySecretHash(hash: string): Promise<MerchantRecord | null> {
    return this.model.findOne({ api_secret_hash: hash }).lean<MerchantRecord>().exec();
  }

  /** What authentication needs of every merchant (services/gateway/src/merchants/secret-directory.ts). */
  async allCredentials(): Promise<
    Pick<MerchantRecord, '_id' | 'api_key_id' | 'api_secret_hash' | 'rate_limit'>[]
  > {
    return this.model
      .find({}, { _id: 1, api_key_id: 1, api_secret_hash: 1, rate_limit: 1 })
      .lean<Pick<MerchantRecord, '_id' | 'api_key_id' | 'api_secret_hash' | 'rate_limit'>[]>()
      .exec();
  }

  async findByPublicKey(publicKey: string): Promise<MerchantRecord | null> {
    return this.model.findOne({ public_key: publicKey }).lean<MerchantRecord>().exec();
  }

  async findById(id: string): Promise<MerchantRecord | null> {
    return this.model.findById(id).lean<MerchantRecord>().exec();
  }

  /**
   * Gives every merchant made before salts existed one of its own. Conditional, so gateways
   * starting together never replace each other's salt. Returns how many were missing.
   */
  async ensureAddressSalts(): Promise<number> {
    const missing = await this.model
      .find({ client_address_salt: { $exists: false } }, { _id: 1 })
      .lean<{ _id: string }[]>()
      .exec();
    for (const { _id } of missing) await this.addressSaltOf(_id);
    return missing.length;
  }

  /** The merchant's salt, made now if it has none yet. */
  async addressSaltOf(id: string): Promise<string> {
    await this.model
      .updateOne(
        { _id: id, client_address_salt: { $exists: false } },
        { $set: { client_address_salt: newAddressSalt() } },
      )
      .exec();
    const salt = (await this.findById(id))?.client_address_salt;
    if (!salt) throw new Error(`merchant ${id}: no client address salt`);
    return salt;
  }

  /** Replaces the API secret; the old one stops matching immediately. */
  async rotateSecret(id: string): Promise<{ merchant: MerchantRecord; apiSecret: string } | null> {
    const apiSecret = issueApiSecret();
    const merchant = await this.model
      .findByIdAndUpdate(
        id,
        {
          $set: {
            api_secret_hash: hashSecret(apiSecret),
            api_key_id: randomUUID(),
            updated_at: new Date(),
          },
        },
        { new: true },
      )
      .lean<MerchantRecord>()
      .exec();
    return merchant ? { merchant, apiSecret } : null;
  }
}
