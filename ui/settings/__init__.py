"""Settings: model picker and catalog, downloads, model server, first run."""
