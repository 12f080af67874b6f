"""The model catalog's scenes for :mod:`tools.screenshots`: the first-run offer, the same
dialog during a download (a sample progress event: no socket), Settings → Models."""

from __future__ import annotations


def settings_models(st):
    """Settings → Models: the catalog sized to this machine (nothing is downloaded)."""
    from ui.settings.settings_dialog import SettingsDialog  # deferred: Qt

    dlg = st.dialog(SettingsDialog(st.backend, st.window))
    dlg.tabs.setCurrentWidget(dlg.catalog)
    st.pump(0.3)
    return dlg


def first_run(st, downloading: bool = False):
    """The first window's offer (the recommended model for a 16 GB computer); with
    ``downloading``, as it looks during the download (a sample progress event: no socket)."""
    from assistant.engine.catalog import download as dl  # deferred: the catalog
    from assistant.engine.catalog import entries
    from ui.settings.first_run import FirstRunDialog  # deferred: Qt
    from ui.settings.model_download import DownloadController

    entry = entries.find("qwen2.5-3b-instruct")
    paths = st.services.profile.paths
    dlg = FirstRunDialog(entry, DownloadController(st.backend.runner, paths.models, st.window), paths, st.window)
    if downloading:
        dlg.progress.begin(entry)
        dlg.progress.setVisible(True)
        dlg.download.setVisible(False)
        dlg.not_now.setText("Close")
        done = int(entry.size_bytes * 0.45)
        dlg.progress.set_progress(dl.DownloadProgress(entry.id, "downloading", done, entry.size_bytes, 12.3e6,
                                                      (entry.size_bytes - done) / 12.3e6))  # fmt: skip
        dlg.fit()
    return st.dialog(dlg)
