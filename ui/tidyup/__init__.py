"""The tidy-up screen: background consolidation runs, preview and undo."""
