from __future__ import annotations

import pickle
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.cards import (
    JOKER,
    STANDARD_DECK,
    Card,
    CardCodeError,
    card,
    cards,
    cards_of,
    make_deck,
    mask_of,
    shuffled,
)


def test_codes_round_trip_for_every_card() -> None:
    for c in (*STANDARD_DECK, JOKER):
        assert card(c.code) is c


def test_codes_accept_ten_and_lower_case() -> None:
    assert card("10h") is card("TH")
    assert cards("qs td") == (card("QS"), card("TD"))


@pytest.mark.parametrize("bad", ["", "ZZ", "1S", "QX", "QSS", "J"])
def test_bad_codes_say_what_a_code_is(bad: str) -> None:
    with pytest.raises(CardCodeError, match="not a card code"):
        card(bad)


def test_cards_are_interned_even_through_pickle() -> None:
    assert pickle.loads(pickle.dumps(card("AH"))) is card("AH")


def test_deck_composition_and_seeded_shuffle() -> None:
    deck = make_deck(decks=2, jokers=4)
    assert len(deck) == 108 and deck.count(JOKER) == 4 and deck.count(card("7C")) == 2
    assert shuffled(deck, random.Random(5)) == shuffled(deck, random.Random(5))
    assert sorted(shuffled(deck, random.Random(5))) == sorted(deck)


_ALL_CARDS = (*STANDARD_DECK, JOKER)


@given(st.sets(st.sampled_from(_ALL_CARDS)))
def test_card_masks_round_trip_in_index_order(held: set[Card]) -> None:
    mask = mask_of(held)
    assert mask.bit_count() == len(held)
    assert cards_of(mask) == tuple(sorted(held, key=lambda c: c.index))
    assert mask_of(cards_of(mask)) == mask
