"""The golden wire transcripts: what one seat receives in a scripted match of each game,
over the real service, must match the committed file (so that the protocol docs, the
engines and the wire cannot drift apart silently). After a deliberate change, run
scripts/record_transcripts and review the diff."""

from __future__ import annotations

import difflib

import pytest

from tests.transcripts.record import SCENARIOS, render, transcript_path


@pytest.mark.parametrize("game", list(SCENARIOS))
def test_transcript_matches_the_wire(game: str) -> None:
    expected = transcript_path(game).read_text()
    actual = render(game)
    if actual != expected:
        diff = "".join(
            list(
                difflib.unified_diff(
                    expected.splitlines(keepends=True),
                    actual.splitlines(keepends=True),
                    f"committed {game}.txt",
                    "the wire now",
                )
            )[:80]
        )
        pytest.fail(
            f"{game}: the wire differs from the golden transcript "
            f"(scripts/record_transcripts rewrites it after a deliberate change):\n{diff}"
        )


@pytest.mark.parametrize("game", list(SCENARIOS))
def test_transcript_shows_every_message_a_match_brings(game: str) -> None:
    text = transcript_path(game).read_text()
    for kind in ("welcome", "match_start", "events", "turn", "action_result", "match_over"):
        assert f": {kind}\n" in text, kind
    assert 'status: "unknown_request"' in text and 'status: "malformed"' in text
    assert 'reason: "finished"' in text
    assert "hand: 0" not in text  # hands are 1-based on the wire
