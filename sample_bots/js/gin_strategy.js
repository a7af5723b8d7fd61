/**
 * A simple Gin Rummy strategy, decided from the typed GinRummyObservation
 * (proto/referee/v1/gin_rummy.proto) and the turn's legal action codes:
 *
 *   - upcard offer / draw: take the face-up card only if it forms or extends a meld;
 *   - go out as soon as the rules allow: big gin, then gin, then knock;
 *   - otherwise discard the card that leaves the least deadwood, the highest-valued
 *     one on ties (in effect: the highest-value card that is not in a meld).
 *
 * Action codes (docs/games/gin_rummy.md): "take upcard", "pass", "draw stock",
 * "draw discard", "discard QS", "knock 7H", "gin 7H", "big gin". The referee lists
 * only the legal ones, so the strategy never has to check the rules itself (the
 * card it just took from the pile, for instance, is simply not offered as a discard).
 *
 * Melds: a set is 3 or 4 cards of one rank; a run is 3 or more consecutive cards of
 * one suit, ace low (A-2-3 is a run, Q-K-A is not). Deadwood counts ace 1, two to ten
 * their value, face cards 10.
 */
'use strict';

/** Deadwood value of one card ({rank: 1..13, suit, code}). */
function value(card) {
  return Math.min(card.rank, 10);
}

/**
 * Every meld that can be made from `cards`, as a bitmask over positions in `cards`
 * (a hand holds at most 11 cards, so the masks are small integers).
 */
function meldsOf(cards) {
  const melds = [];
  // Sets: all four cards of a rank, and every three of them.
  const byRank = new Map();
  cards.forEach((card, i) => byRank.set(card.rank, (byRank.get(card.rank) || []).concat(i)));
  for (const group of byRank.values()) {
    if (group.length < 3) continue;
    const all = group.reduce((mask, i) => mask | (1 << i), 0);
    melds.push(all);
    if (group.length === 4) for (const i of group) melds.push(all & ~(1 << i));
  }
  // Runs: every stretch of 3 or more consecutive ranks within one suit.
  const bySuit = new Map();
  cards.forEach((card, i) => bySuit.set(card.suit, (bySuit.get(card.suit) || []).concat(i)));
  for (const group of bySuit.values()) {
    group.sort((x, y) => cards[x].rank - cards[y].rank);
    for (let start = 0; start < group.length; start++) {
      let mask = 1 << group[start];
      for (let end = start + 1; end < group.length; end++) {
        if (cards[group[end]].rank !== cards[group[end - 1]].rank + 1) break;
        mask |= 1 << group[end];
        if (end - start >= 2) melds.push(mask);
      }
    }
  }
  return melds;
}

/** The least deadwood of `cards`: their total value minus the most that disjoint melds cover. */
function deadwood(cards) {
  const melds = meldsOf(cards).map((mask) => ({
    mask,
    value: cards.reduce((sum, card, i) => (mask & (1 << i) ? sum + value(card) : sum), 0),
  }));
  let best = 0;
  // Depth-first over combinations of non-overlapping melds; a hand has few melds.
  const search = (from, used, covered) => {
    if (covered > best) best = covered;
    for (let k = from; k < melds.length; k++) {
      if ((melds[k].mask & used) === 0) search(k + 1, used | melds[k].mask, covered + melds[k].value);
    }
  };
  search(0, 0, 0);
  return cards.reduce((sum, card) => sum + value(card), 0) - best;
}

/** True when `card` would join a meld in the best arrangement of `hand` plus `card`. */
function meldsWith(hand, card) {
  return deadwood(hand.concat([card])) < deadwood(hand) + value(card);
}

/**
 * Among codes like "discard QS" / "knock QS" (all with the same `prefix`), the one that
 * leaves the least deadwood, the highest-valued card on ties. Stops early, with the best
 * found so far, if the turn's time runs out.
 */
function bestDiscard(hand, codes, prefix, ctx) {
  let best = codes[0];
  let bestKey = null;
  for (const code of codes) {
    if (ctx.timeUp()) break;
    const cardCode = code.slice(prefix.length);
    const card = hand.find((c) => c.code === cardCode);
    if (!card) continue;
    const key = [deadwood(hand.filter((c) => c !== card)), -value(card)];
    if (bestKey === null || key[0] < bestKey[0] || (key[0] === bestKey[0] && key[1] < bestKey[1])) {
      best = code;
      bestKey = key;
    }
  }
  return best;
}

/**
 * The strategy: (observation, legal codes, ctx) -> one of the codes.
 * `ctx` comes from bot.js: ctx.choice(xs), ctx.random(), ctx.timeUp().
 */
function choose(obs, legal, ctx) {
  if (legal.length === 1) return legal[0];
  const hand = obs.hand;

  // Upcard offer ("take upcard" / "pass") and draw ("draw discard" / "draw stock"):
  // the face-up card is the top (last) card of this seat's table's discard pile.
  if (legal.includes('take upcard') || legal.includes('draw discard')) {
    const table = obs.tables[obs.table];
    const pile = table ? table.discard_pile : [];
    const wanted = pile.length > 0 && meldsWith(hand, pile[pile.length - 1]);
    if (legal.includes('take upcard')) return wanted ? 'take upcard' : 'pass';
    return wanted ? 'draw discard' : 'draw stock';
  }

  // Go out as soon as it is legal: the referee offers "gin X" / "knock X" only when the
  // hand qualifies after discarding X.
  if (legal.includes('big gin')) return 'big gin';
  const gins = legal.filter((code) => code.startsWith('gin '));
  if (gins.length > 0) return gins[0];
  const knocks = legal.filter((code) => code.startsWith('knock '));
  if (knocks.length > 0) return bestDiscard(hand, knocks, 'knock ', ctx);

  const discards = legal.filter((code) => code.startsWith('discard '));
  if (discards.length > 0) return bestDiscard(hand, discards, 'discard ', ctx);
  return ctx.choice(legal); // a decision this strategy does not know: play at random
}

module.exports = { choose, deadwood, meldsOf, value };
