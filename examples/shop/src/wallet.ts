/**
 * The prepaid wallet: the balance, an alert below a threshold, and a top-up link for the merchant.
 * Amounts stay KWD text; `kwd.compare` decides "low", `kwd.toNumber` only at the wire for the top-up amount.
 */
import { type DeliveryClient, kwd } from 'delivery-task-sdk';

export interface WalletSettings {
  /** Below this balance (KWD text) the shop raises an alert and asks for a top-up link. */
  readonly lowBalance: string;
  /** The top-up to ask for (KWD text, at least 5). */
  readonly topUpAmount: string;
  /** Called once per check that finds the balance low (a pager, an e-mail…). */
  readonly onLowBalance: (alert: LowBalanceAlert) => void;
}

export interface LowBalanceAlert {
  /** The balance, KWD text. */
  readonly balance: string;
  readonly threshold: string;
  /** The payment page the merchant opens to top up (valid about 24 h). */
  readonly paymentUrl: string;
}

export interface WalletReport {
  /** KWD text. */
  readonly balance: string;
  /** `KWD 1,234.500`, for people. */
  readonly formatted: string;
  readonly low: boolean;
  /** Present when the balance is low. */
  readonly topUpUrl?: string;
}

/**
 * Reads the balance; below `settings.lowBalance` it requests one top-up link (never retried by the SDK:
 * each call issues a link) and raises the alert.
 */
export async function checkWallet(client: DeliveryClient, settings: WalletSettings): Promise<WalletReport> {
  const { walletAmount } = await client.wallet.retrieveBalance();
  const balance = kwd.normalize(walletAmount);
  const formatted = kwd.format(balance);
  if (kwd.compare(balance, settings.lowBalance) >= 0) return { balance, formatted, low: false };
  const { paymentUrl } = await client.wallet.topUp({ amount: kwd.toNumber(settings.topUpAmount) });
  settings.onLowBalance({ balance, threshold: kwd.normalize(settings.lowBalance), paymentUrl });
  return { balance, formatted, low: true, topUpUrl: paymentUrl };
}
