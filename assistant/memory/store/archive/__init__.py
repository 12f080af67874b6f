"""The context archive, in the same encrypted file as the memories: the history as sent, offloaded
texts, compaction state, the note's versions, exports' paths (:mod:`.context`); :mod:`.migrate`."""
