from __future__ import annotations

import pickle
import random

import pytest

from referee.cards import JOKER, STANDARD_DECK, CardCodeError, card, cards, make_deck, shuffled


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
