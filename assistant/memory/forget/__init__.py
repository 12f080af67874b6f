"""Forget: what the person means by "forget X" (:mod:`.topic`: the memories about X, pre-ticked by
confidence, with the part of each that goes); nothing is deleted before the person confirms.

Deleting itself is the store's (:mod:`assistant.memory.store.forgetting`: plan the scope, apply it
through every holder of a copy in one transaction, report); the requests and reports are
re-exported here for the layers above.
"""

from assistant.memory.store.forgetting.report import ForgetReport, ForgetRequest, HolderResult, PartCut, TextCut

__all__ = ["ForgetReport", "ForgetRequest", "HolderResult", "PartCut", "TextCut"]
