"""Reading puzzle files: bytes from a path and UTF-8 text, with errors that name the place.

Shared by the puzzle parsers; each passes its own error types and the kind of
file it expects, so a message reads "NAME: ...: expected the path of a .non file".
"""

from __future__ import annotations

import os
import re

NEWLINE = re.compile(r"\r\n|\r|\n")


def read_bytes(path, *, error, not_found, what: str) -> bytes:
    """The bytes of the file at ``path``; a missing file raises ``not_found``, a directory
    or another OS error ``error``, each naming the file and expecting ``what``."""
    name = os.fspath(path)
    if len(name) > 80:
        name = name[:77] + "..."
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise not_found(f"{name}: no such file: expected the path of {what}") from None
    except IsADirectoryError:
        raise error(f"{name}: is a directory: expected the path of {what}") from None
    except OSError as err:
        hint = (" (the text of a puzzle goes to parse_text(), not parse())"
                if getattr(err, "errno", None) == 36 else "")  # ENAMETOOLONG
        raise error(f"{name}: cannot be read ({err.strerror or err}): expected the path of "
                    f"a readable {what.removeprefix('a ')}{hint}") from None
    except ValueError as err:  # e.g. an embedded NUL character in the name
        raise error(f"{name!r}: not a usable file name ({err}): expected the path of {what}") from None


def decode_utf8(data: bytes, name: str, *, error) -> str:
    """The UTF-8 text of ``data`` (a leading byte-order mark dropped); a byte that is not
    UTF-8 raises ``error`` naming its line and column."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as bad:
        before = NEWLINE.split(data[:bad.start].decode("utf-8"))
        raise error(f"{name}, line {len(before)}, column {len(before[-1]) + 1}: byte 0x{data[bad.start]:02x} "
                    f"is not UTF-8: expected a UTF-8 text file") from None
