"""How the store forgets: one owner for deleting what the person said, everywhere a copy of it
went -- plan the scope, apply it through every registered holder in one transaction, report what
went. It is SQL on the store's own tables, so it lives in the store; ``store.delete``,
``store.forget`` and ``store.delete_session`` (:mod:`assistant.memory.store.delete`) call it.

The life of a delete (``store.delete``, ``store.forget``, ``store.delete_session``, "forget X"):

1. :mod:`.scope` plans it (with :mod:`.cascade`): which memories go whole, which lose only some
   sentences (the part about X, copies of a removed text, derived memories rebuilt from what
   remains), which sentences leave the source messages and the replies that repeated them;
   :mod:`assistant.memory.language.match` finds a text after case/whitespace normalisation, at any length.
2. :mod:`.forgetter` applies it in ONE write transaction through every registered holder
   (:mod:`.holders`: memory rows, versions, FTS, vectors, entities, links, audit text, injection
   log; :mod:`.holders_text`: messages, the archived history and offloads, summaries, the note's
   old versions, a deleted conversation; plus holders registered by the layers above, e.g. the
   compaction summaries rebuilt by :mod:`assistant.context.redact`), checkpoints the WAL, then
   runs the after-holders (prompt caches, open sessions, retrieval cache). One
   :class:`.report.ForgetReport` says what each holder removed; a failing holder is an error
   in it (a database holder's failure rolls everything back).
3. :mod:`assistant.memory.forget.topic` proposes what "forget X" means (memories about X, pre-ticked by confidence,
   with the part of each that goes); nothing is deleted before the person confirms.

Everything the person said is in the encrypted database (the context archive too,
:mod:`assistant.memory.store.archive.context`), so forgetting is SQL plus a WAL checkpoint; Keepsake never
opens, edits or deletes a file it did not write (exports are the person's: a preview only names
the earlier exports that still hold the text).
"""
