"""A Dingo strategy bot: card tracking, hand evaluation for discards and passes, wolf timing.

It decides only from the observation (``referee.v1.dingo_pb2.DingoObservation``):

- Card tracking: every card in the discard pile, played in a hunt, or in a pile
  is out of play; the cards it passed are probably still with the seat it gave
  them to; every other unseen card is in one of the other hands.
- Discards and passes: it keeps the hand worth most to it minus a third of what
  the cards it gives away are worth to the opponents (wolves whose dingo is
  alive, wolf aces with the ace rabbit; dingoes whose wolves are all dead are
  liabilities it discards or passes on; an ace rabbit without a wolf ace is
  passed on).
- Wolf timing: second wolf always; never both wolves (the second one only
  feeds the dingo); first wolf unless the other wolf is very likely in the hand
  of a seat still to play, where it would only be overtaken.
- Ace hunt: plays every wolf ace it holds, then the ace rabbit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.botkit import DINGO_DEALT_CARDS as DEALT_CARDS
from referee.botkit import MatchRandom

# Only a fallback for a phase this bot does not know uses chance.
_rng = MatchRandom()  # reseeded from ARENA_BOT_SEED and the match id at every match

Q_WOLF = 0.6  # chance an opponent holding a live wolf plays it
Q_WOLF_ACE = 0.65
BETA = 1 / 3  # weight of one opponent's points against our own (three opponents)
KEPT_AFTER_PASS = 8.0  # weight that a card we passed is still with its receiver
DECLINE_FIRST_WOLF_AT = 0.8  # likelihood the other wolf is with a later seat
_ALL = frozenset(c.code for c in DEALT_CARDS)
_RANKS = "A23456789TJQK"


@dataclass
class Knowledge:
    seat: int
    hand: frozenset[str]
    dead: frozenset[str]  # out of play: discarded, played in a hunt, in a pile
    passed_to: dict[str, int]  # card -> seat we last passed it to
    hand_sizes: tuple[int, ...]

    def hidden(self) -> frozenset[str]:
        return _ALL - self.hand - self.dead

    def where(self, code: str) -> dict[int, float]:
        """A probability for each other seat to hold ``code`` (which we cannot see)."""
        weights = {}
        for s in range(4):
            if s == self.seat:
                continue
            w = float(self.hand_sizes[s])
            if self.passed_to.get(code) == s:
                w *= KEPT_AFTER_PASS
            weights[s] = w
        total = sum(weights.values()) or 1.0
        return {s: w / total for s, w in weights.items()}


def knowledge(obs: Any) -> Knowledge:
    seat = obs.seat
    dead = {d.card.code for d in obs.discards}
    dead.update(c.code for c in obs.table)
    for h in obs.hunts:
        if h.HasField("dingo"):
            dead.add(h.dingo.code)
        dead.update(w.card.code for w in h.wolves)
    for group in (*obs.scoring_piles, *obs.penalty_piles):
        dead.update(c.code for c in group.cards)
    passed_to: dict[str, int] = {}
    for p in obs.passes:
        if p.from_seat == seat and p.HasField("card"):
            passed_to[p.card.code] = p.to_seat
    return Knowledge(
        seat=seat,
        hand=frozenset(c.code for c in obs.hand),
        dead=frozenset(dead),
        passed_to=passed_to,
        hand_sizes=tuple(obs.hand_sizes),
    )


# --- evaluation -----------------------------------------------------------------------


def _points(rank: int) -> int:
    return 1 if rank <= 9 else 2


def _rank_values(r: int, hand: frozenset[str], dead: frozenset[str]) -> tuple[float, float]:
    """(our expected points, the opponents' expected points) from the hunt of rank r."""
    ch = _RANKS[r - 1]
    heart, wolves = ch + "H", (ch + "C", ch + "S")
    v = _points(r)
    if heart in dead:
        return 0.0, 0.0
    live_others = sum(1 for w in wolves if w not in hand and w not in dead)
    if heart in hand:
        if live_others == 0:
            return -v, 0.0
        p_none = (1 - Q_WOLF) ** live_others
        p_two = Q_WOLF**2 if live_others == 2 else 0.0
        mine = 2 * v * p_two + v * (1 - p_none - p_two) - v * p_none
        return mine, 2 * v * (1 - p_none)
    mine_wolves = sum(1 for w in wolves if w in hand)
    if mine_wolves == 0:
        p_any = 1 - (1 - Q_WOLF) ** live_others
        return 0.0, p_any * 3 * v - (1 - p_any) * v
    if mine_wolves == 2 or live_others == 0:
        return 2 * v * 0.9, v
    return 2 * v * 0.55, 2 * v * 0.5


def _ace_values(hand: frozenset[str], dead: frozenset[str]) -> tuple[float, float]:
    wolf_aces = sum(1 for a in ("AC", "AS") if a in hand)
    others = sum(1 for a in ("AC", "AS") if a not in hand and a not in dead)
    if {"AC", "AD", "AH", "AS"} <= hand:
        return 19.0, 0.0
    mine = 3.0 * wolf_aces
    opp = 3.0 * others * Q_WOLF_ACE
    if "AD" in hand:
        mine += 10 if wolf_aces else -3
    elif "AD" not in dead:
        p = 0.55 if others == 2 else 0.33 if others == 1 else 0.0
        opp += 10 * p - 3 * (1 - p)
    if "AH" in hand:
        p_none = (1 - Q_WOLF_ACE) ** others
        mine += 3.0 if wolf_aces else 3 * (1 - p_none) - 3 * p_none
    elif "AH" not in dead:
        opp += 3.0 if wolf_aces else 2.0
    return mine, opp


def evaluate(hand: frozenset[str], dead: frozenset[str]) -> float:
    """Our expected points from this hand minus BETA times the opponents'."""
    total = 0.0
    for r in range(2, 14):
        mine, opp = _rank_values(r, hand, dead)
        total += mine - BETA * opp
    mine, opp = _ace_values(hand, dead)
    return total + mine - BETA * opp


# --- decisions -------------------------------------------------------------------------


def _best_card(k: Knowledge, legal: Sequence[str], prefix: str, public: bool) -> str | None:
    best, best_score = None, float("-inf")
    for code in legal:
        if not code.startswith(prefix):
            continue
        c = code[len(prefix) :]
        dead = k.dead | {c} if public else k.dead
        score = evaluate(k.hand - {c}, dead)
        if score > best_score:
            best, best_score = code, score
    return best


def _wolf_choice(obs: Any, k: Knowledge, legal: Sequence[str]) -> str:
    wolves = [c for c in legal if c.startswith("wolf ")]
    if not wolves:
        return "decline"
    hunt = obs.hunts[len(obs.hunts) - 1]
    played = [w.seat for w in hunt.wolves]
    if k.seat in played:
        return "decline"  # the second of our own wolves would only feed the dingo
    if played or obs.hunt_rank == 1:
        return wolves[0]  # second wolf; in the ace hunt every wolf ace scores
    if len(wolves) == 2:
        return wolves[0]  # nobody can overtake us
    mine = wolves[0][5:]
    other = mine[0] + ("S" if mine[1] == "C" else "C")
    if other in k.dead:
        return wolves[0]
    order = [(hunt.dingo_seat + i) % 4 for i in (1, 2, 3)]
    later = order[order.index(k.seat) + 1 :]
    where = k.where(other)
    p_later = sum(where.get(s, 0.0) for s in later)
    return "decline" if p_later * 0.9 >= DECLINE_FIRST_WOLF_AT else wolves[0]


def choose(observation: Any, legal_actions: Sequence[str]) -> str:
    legal = list(legal_actions)
    phase = observation.phase
    k = knowledge(observation)
    pick: str | None = None
    if phase == "discard":
        pick = _best_card(k, legal, "discard ", public=True)
    elif phase.startswith("pass_"):
        pick = _best_card(k, legal, "pass ", public=False)
    elif phase in ("hunt", "ace_hunt"):
        pick = _wolf_choice(observation, k, legal)
    elif phase == "ace_rabbit":
        pick = "ace rabbit"
    if pick not in legal:
        pick = _rng.choice(legal)
    return pick


if __name__ == "__main__":
    from referee.client import run_bot

    run_bot(
        choose, name="dingo_strategy", on_match_start=lambda start: _rng.start_match(start.match_id)
    )
