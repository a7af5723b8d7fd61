"""A bot that says hello properly, then answers its first turn with bytes that are no
protobuf message at all, then plays on randomly."""

from __future__ import annotations

import os
import queue
import random
from collections.abc import Iterator

import grpc

from referee.v1 import referee_pb2 as pb

rng = random.Random(os.environ.get("ARENA_BOT_SEED"))


def main() -> None:
    outgoing: queue.Queue[bytes | None] = queue.Queue()
    outgoing.put(pb.BotMessage(hello=pb.Hello(token=os.environ["ARENA_TOKEN"])).SerializeToString())

    def requests() -> Iterator[bytes]:
        while (item := outgoing.get()) is not None:
            yield item

    with grpc.insecure_channel(os.environ["ARENA_TARGET"]) as channel:
        play = channel.stream_stream(
            "/referee.v1.Referee/Play",
            request_serializer=None,
            response_deserializer=pb.RefereeMessage.FromString,
        )
        sent_garbage = False
        for message in play(requests()):
            if message.WhichOneof("kind") != "turn":
                continue
            if not sent_garbage:
                outgoing.put(b"\xff\xfe\xfd this is not protobuf \x00\x99")
                sent_garbage = True
                continue
            code = rng.choice(list(message.turn.legal_actions))
            outgoing.put(
                pb.BotMessage(
                    action=pb.Action(request_id=message.turn.request_id, code=code)
                ).SerializeToString()
            )
        outgoing.put(None)


if __name__ == "__main__":
    main()
