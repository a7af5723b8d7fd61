"""arena.rendering: one meaning for each point of view, the same as the engines' own
Event.text_for (a seat; None: a spectator; ALL_HANDS: every private text)."""

from __future__ import annotations

from arena.rendering import ALL_HANDS, event_text, render_data
from referee.game import Event


def test_event_text_reads_a_recorded_event_as_the_engine_does() -> None:
    private = Event(
        "draw",
        "seat 1 draws a card",
        seat=1,
        private_text="you draw 7H",
        visible_to=frozenset({1, 3}),
    )
    public = Event("knock", "seat 0 knocks", seat=0)
    for event in (private, public):
        line = {"type": "event", **event.to_json()}
        for seat in (None, 0, 1, 2, 3):
            assert event_text(line, seat) == event.text_for(seat)
    line = {"type": "event", **private.to_json()}
    assert event_text(line, None) == "seat 1 draws a card"  # a spectator: public text only
    assert event_text(line, ALL_HANDS) == "you draw 7H"
    assert event_text({"type": "event", **public.to_json()}, ALL_HANDS) == "seat 0 knocks"


def test_render_data_writes_cards_as_codes() -> None:
    assert render_data({"hand": ["AS", "7H"], "melds": [["2C", "3C", "4C"], []], "pile": []}) == [
        "  hand: AS 7H",
        "  melds: 2C 3C 4C; -",
        "  pile: -",
    ]
