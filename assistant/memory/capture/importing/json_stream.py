"""Read the elements of a top-level JSON array one at a time, without loading the file whole.

    for item in iter_array(open("conversations.json", "rb").read, on_bad_text=note):
        ...

The bytes are read in chunks (1 MiB, doubled while one element does not fit), decoded as UTF-8
(a BOM is skipped) and each element is parsed with ``json.JSONDecoder.raw_decode``; memory holds
one element plus one chunk. Bytes that are not UTF-8 are replaced with U+FFFD and reported once
per chunk through ``on_bad_text(byte_offset)``. ``on_read(n)`` is told how many bytes were read
(progress). Malformed JSON raises :class:`JsonStreamError` with the line and column.
"""

from __future__ import annotations

import codecs
import json
from typing import Any, Callable, Iterator

CHUNK = 1 << 20


class JsonStreamError(ValueError):
    def __init__(self, msg: str, line: int, column: int) -> None:
        super().__init__(f"{msg} at line {line} column {column}")
        self.msg, self.line, self.column = msg, line, column


class _Buffer:
    def __init__(self, read: Callable[[int], bytes], on_read: Callable[[int], None] | None,
                 on_bad_text: Callable[[int], None] | None) -> None:  # fmt: skip
        self.read = read
        self.on_read = on_read
        self.on_bad_text = on_bad_text
        self.text = ""
        self.pos = 0
        self.eof = False
        self.offset = 0  # bytes read so far
        self.lines_before = 0  # newlines in the text dropped from the front of the buffer
        self.column_base = 0  # characters of the current line dropped from the front
        self._decoder = codecs.getincrementaldecoder("utf-8")("strict")

    def fill(self, size: int) -> bool:
        """Read up to ``size`` more bytes; False at end of file."""
        if self.eof:
            return False
        raw = self.read(size)
        if self.on_read is not None and raw:
            self.on_read(len(raw))
        final = not raw
        try:
            text = self._decoder.decode(raw, final=final)
        except UnicodeDecodeError:
            if self.on_bad_text is not None:
                self.on_bad_text(self.offset)
            self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
            text = self._decoder.decode(raw, final=final)
            self._decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self.offset += len(raw)
        if self.offset == len(raw) and text.startswith("\ufeff"):
            text = text[1:]
        consumed = self.text[: self.pos]
        newlines = consumed.count("\n")
        self.lines_before += newlines
        self.column_base = len(consumed) - consumed.rfind("\n") - 1 if newlines else self.column_base + len(consumed)
        self.text = self.text[self.pos :] + text
        self.pos = 0
        self.eof = final
        return not final

    def skip_space(self) -> None:
        while True:
            while self.pos < len(self.text) and self.text[self.pos] in " \t\r\n":
                self.pos += 1
            if self.pos < len(self.text) or not self.fill(CHUNK):
                return

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def error(self, msg: str, at: int) -> JsonStreamError:
        before = self.text[:at]
        newlines = before.count("\n")
        column = at - before.rfind("\n") if newlines else self.column_base + at + 1
        return JsonStreamError(msg, self.lines_before + newlines + 1, column)


def iter_array(read: Callable[[int], bytes], *, on_read: Callable[[int], None] | None = None,
               on_bad_text: Callable[[int], None] | None = None) -> Iterator[Any]:  # fmt: skip
    """Yield each element of the JSON array the stream holds (see the module docstring)."""
    buf = _Buffer(read, on_read, on_bad_text)
    decoder = json.JSONDecoder()
    if buf.peek() != "[":
        raise buf.error("Expecting '['", buf.pos)
    buf.pos += 1
    first = True
    while True:
        ch = buf.peek()
        if ch == "]":
            return
        if not ch:
            raise buf.error("Expecting ']' (the file ends inside the list)", buf.pos)
        if not first:
            if ch != ",":
                raise buf.error("Expecting ',' delimiter", buf.pos)
            buf.pos += 1
            if not buf.peek():
                raise buf.error("Expecting value", buf.pos)
        first = False
        want = CHUNK
        while True:
            try:
                item, end = decoder.raw_decode(buf.text, buf.pos)
                break
            except json.JSONDecodeError as exc:
                incomplete = exc.pos >= len(buf.text) - 8 or exc.msg.startswith("Unterminated string")
                if not incomplete or buf.eof:
                    raise buf.error(exc.msg, exc.pos) from None
                buf.fill(want)  # then parse again: positions are relative to the refilled buffer
                want = min(want * 2, 64 * CHUNK)
        buf.pos = end
        yield item
