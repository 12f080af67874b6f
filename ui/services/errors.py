"""Turn exceptions into calm, clear sentences for the person (status bar or dialog)."""

from __future__ import annotations

from pathlib import Path

from assistant.memory.store.sqlite import diagnose

from assistant.memory.store.sqlite import integrity


def _names(exc: BaseException) -> set[str]:
    return {c.__name__ for c in type(exc).__mro__}


def is_user_error(exc: BaseException) -> bool:
    """Errors whose message is written for the person (no traceback needed in the log)."""
    return bool(_names(exc) & {"ModelError", "StoreError", "NoteError", "ValueError", "EmptyMessage", "OSError", "EngineError"})


STORAGE_FAULTS = {"StorageError", "WrongKeyError", "KeyMissingError"}


def storage_fault(exc: BaseException, database: Path | None = None) -> str | None:
    """The one-line message (the same the CLI prints) when ``exc`` is a storage fault -- a
    damaged, full, read-only or locked database, a wrong or missing key -- else None. A raw
    driver or OS error is classified against ``database`` (the profile's; damage is remembered)."""
    if _names(exc) & STORAGE_FAULTS:
        return _sentence(str(exc))
    if database is not None and ("DatabaseError" in _names(exc) or isinstance(exc, OSError)):
        known = diagnose.classify(exc, database)
        if known is None or not (_names(known) & STORAGE_FAULTS):
            return None
        if _names(known) & {"DamagedError"}:
            integrity.write_marker(database, str(exc))
        return _sentence(str(known))
    return None


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def describe(exc: BaseException, database: Path | None = None) -> str:
    """One or two sentences saying what happened and, where possible, what to do (a raw
    storage error is classified against ``database``, see :func:`storage_fault`)."""
    storage = storage_fault(exc, database)
    if storage is not None:
        return storage
    names = _names(exc)
    if "EngineError" in names:
        text = str(exc)
        return text[:1].upper() + text[1:] + "."
    if "ModelError" in names:
        path = getattr(exc, "path", None)
        reason = getattr(exc, "reason", str(exc))
        where = f" ({path.name})" if path is not None and getattr(path, "name", "") else ""
        return f"This model can't be used{where}: {reason}."
    if "VersionConflict" in names:
        return "This memory changed in the background while you were editing. It has been reloaded; please try again."
    if "NotFound" in names:
        return f"That item no longer exists ({exc}). The list has been refreshed."
    if "NoteTooLong" in names or "NoteError" in names:
        return str(exc)
    if "WrongKeyError" in names or "KeyMissingError" in names:
        return f"Your memory database can't be opened: {exc}"
    if "StoreError" in names:
        return f"The memory database reported a problem: {exc}"
    if "EmptyMessage" in names:
        return "There is nothing to send yet."
    if "ContextOverflow" in names:
        return f"This doesn't fit in the model's context window: {exc}. Try a shorter note or a larger context size."
    if "PermissionError" in names:
        return f"Keepsake isn't allowed to write there: {exc}"
    if "OSError" in names:
        return f"A file operation failed: {exc}"
    if "ValueError" in names:
        return str(exc)[:1].upper() + str(exc)[1:] if str(exc) else "That value isn't valid."
    text = str(exc) or type(exc).__name__
    return f"Something went wrong ({type(exc).__name__}: {text}). Nothing was lost; the details are in the log."
