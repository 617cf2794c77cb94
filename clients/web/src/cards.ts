// Cards as the API writes them ("7♠", "10♥", "Q♦", "A♣"; "" for a card face down) and as the
// page draws them: a white card with its rank and suit, in four suit colours.
import { h, type Attrs } from './dom';

export const SUITS = ['♠', '♣', '♦', '♥'] as const;
const SUIT_CLASS: Record<string, string> = { '♠': 'spades', '♣': 'clubs', '♦': 'diamonds', '♥': 'hearts' };
const RANKS = ['7', '8', '9', '10', 'J', 'Q', 'K', 'A'];

export interface ParsedCard {
  rank: string;
  suit: string;
}

export function parseCard(card: string): ParsedCard | null {
  const suit = card.slice(-1);
  const rank = card.slice(0, -1);
  if (!(suit in SUIT_CLASS) || !RANKS.includes(rank)) return null;
  return { rank, suit };
}

export function rankValue(rank: string): number {
  return RANKS.indexOf(rank);
}

// A card element: `data-testid="card"`, `data-card` the API's string. With `action`, a button
// that sends that legal action (`data-action`).
export function cardEl(card: string, extra: Attrs = {}, onClick?: () => void): HTMLElement {
  const parsed = parseCard(card);
  if (!parsed) {
    // Face down: no `card` test id, no `data-card` (there is nothing to know about it).
    return h('span', { class: 'card back', 'aria-label': 'a card face down' });
  }
  const attrs: Attrs = { 'data-testid': 'card', 'data-card': card, ...extra };
  attrs.class = `card ${SUIT_CLASS[parsed.suit]}${extra.class ? ` ${String(extra.class)}` : ''}`;
  attrs['aria-label'] = card;
  const face = [
    h('span', { class: 'corner' }, h('span', { class: 'rank' }, parsed.rank), h('span', { class: 'pip' }, parsed.suit)),
    h('span', { class: 'centre' }, parsed.suit),
  ];
  if (onClick) {
    attrs.type = 'button';
    return h('button', { ...attrs, onclick: () => onClick() }, face);
  }
  return h('span', attrs, face);
}

// Text with every suit sign coloured ("7♠", "discard 7♣ 8♦", "misère").
export function suitText(text: string): (Node | string)[] {
  const out: (Node | string)[] = [];
  let buffer = '';
  for (const ch of text) {
    if (ch in SUIT_CLASS) {
      if (buffer) out.push(buffer);
      buffer = '';
      out.push(h('span', { class: `suit ${SUIT_CLASS[ch]}` }, ch));
    } else {
      buffer += ch;
    }
  }
  if (buffer) out.push(buffer);
  return out;
}

// The suit of a strain as bids write it ("7♠" → "♠", "6NT" → "NT", "misère" → "").
export function strainOf(bid: string): string {
  if (bid.endsWith('NT')) return 'NT';
  const suit = bid.slice(-1);
  return suit in SUIT_CLASS ? suit : '';
}

// An exact result in whists ("326/3") with its decimal value ("326/3 ≈ 108.7").
export function whistsText(fraction: string): string {
  const [a, b] = fraction.split('/').map(Number);
  if (b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0) return fraction;
  return `${fraction} ≈ ${(a / b).toFixed(1)}`;
}
