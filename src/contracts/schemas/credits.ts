import { Type } from '@sinclair/typebox';

/** GET /v1/credits (DECISIONS "Credits"). */
export const CreditsSchema = Type.Object({
  balance: Type.Number({ description: 'Credits that can still be spent (open reservations already taken out). 1 credit = $0.01.' }),
  reserved: Type.Number({ description: 'Credits held by renders in progress.' }),
  updated_at: Type.String({ format: 'date-time' }),
});
