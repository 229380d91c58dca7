import { Type } from '@sinclair/typebox';

/** GET /v1/credits (DECISIONS "Credits"). */
export const CreditsSchema = Type.Object({
  balance: Type.Number({ description: 'Credits that can still be spent (open reservations already taken out). 1 credit = $0.01.' }),
  reserved: Type.Number({ description: 'Credits held by renders in progress.' }),
  updated_at: Type.String({ format: 'date-time' }),
});

/** GET /v1/credits/ledger: an addition to the interface (docs/api-decisions.md, "Ledger"). */
const LedgerEntrySchema = Type.Object({
  id: Type.String({ description: 'led_... (opaque)' }),
  kind: Type.Union(
    ['grant', 'charge', 'refund', 'reserve', 'settle', 'release'].map((k) => Type.Literal(k)),
    {
      description:
        'grant: credits added; reserve/settle/release: a render or video holds credits, is charged the final amount, or gives the rest back; charge/refund: flat-price assets.',
    },
  ),
  resource_id: Type.String({ description: 'The render, video, character, motion or grant the movement belongs to.' }),
  amount: Type.Number({ description: 'Signed change of the spendable balance, in credits.' }),
  reserved_delta: Type.Number({ description: 'Signed change of the reserved credits.' }),
  note: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String({ format: 'date-time' }),
});

export const LedgerPageSchema = Type.Object({
  items: Type.Array(LedgerEntrySchema),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last page.' }),
});

export const LedgerQuerySchema = Type.Object({
  cursor: Type.Optional(Type.String({ minLength: 1, description: 'next_cursor of the previous page.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
});
