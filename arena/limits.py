"""The limits a bot runs under (CPU, memory, stderr kept, processes), on their own so the
tournament settings can name them without importing the bot launcher."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BotLimits:
    """Per-bot limits. None switches a limit off."""

    cpu_seconds: float | None = 60.0  # CPU time per match, every process of the bot
    memory_mb: float | None = 1024.0  # resident memory, every process of the bot
    output_bytes: int = 64 * 1024  # stderr kept per match; the rest is counted, not kept
    max_processes: int | None = 128  # processes and threads (gRPC alone starts ~10)

    def to_json(self) -> dict[str, float | int | None]:
        return {
            "cpu_seconds": self.cpu_seconds,
            "memory_mb": self.memory_mb,
            "output_bytes": self.output_bytes,
            "max_processes": self.max_processes,
        }
