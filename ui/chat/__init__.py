"""The chat screen: conversation view, composer, conversations list, note editor, budget bar."""
