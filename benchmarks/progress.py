"""A plain progress bar on stderr, so a long run shows it is alive without any dependency."""

import sys
from typing import TextIO

BAR_WIDTH = 28


class ProgressBar:
    """Redraws in place on a terminal; on a pipe or log, writes a line every tenth of the way."""

    def __init__(self, total: int, stream: TextIO = sys.stderr) -> None:
        self.total = max(total, 1)
        self.done = 0
        self.stream = stream
        self.interactive = stream.isatty()
        self._last_tenth = -1

    def start(self, label: str) -> None:
        """Show what is being measured now, before it starts."""
        if self.interactive:
            self.stream.write("\r\033[K" + self._line(label))
            self.stream.flush()

    def advance(self) -> None:
        self.done += 1
        tenth = 10 * self.done // self.total
        if not self.interactive and tenth != self._last_tenth:
            self._last_tenth = tenth
            self.stream.write(self._line("") + "\n")

    def close(self) -> None:
        if self.interactive:
            self.stream.write("\r\033[K")
            self.stream.flush()

    def _line(self, label: str) -> str:
        filled = BAR_WIDTH * self.done // self.total
        bar = "#" * filled + "-" * (BAR_WIDTH - filled)
        return f"[{bar}] {self.done}/{self.total} {label}"
