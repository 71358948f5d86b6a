"""Connection settings dialog: service addresses, keys (kept in the QGIS auth database)."""

from __future__ import annotations

import os

from qgis.core import QgsApplication, QgsTask
from qgis.gui import QgsFileWidget
from qgis.PyQt.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
)

from ..processing_provider.connection import StoredSettings, resolve_profile, store_key

STORED_HINT = "stored in the QGIS authentication database — type to replace"


class SettingsDialog(QDialog):
    """Edit the addresses and keys used by every Fleet Street algorithm."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Fleet Street — Connection Settings")
        self.setMinimumWidth(520)
        self.settings = StoredSettings.load()
        self._task = None

        form = QFormLayout()
        self.fleet_url = QLineEdit(self.settings.fleet_url)
        self.fleet_url.setPlaceholderText("https://… (fleet API base; paths start with /v1)")
        self.fleet_key = self._key_edit(self.settings.fleet_authcfg)
        self.data_url = QLineEdit(self.settings.data_url)
        self.data_url.setPlaceholderText("https://… (street-level data API base address)")
        self.data_key = self._key_edit(self.settings.data_authcfg)
        self.mcp_url = QLineEdit(self.settings.mcp_url)
        self.mcp_url.setPlaceholderText("defaults to <data address>/mcp")
        self.concurrency = QSpinBox()
        self.concurrency.setRange(1, 32)
        self.concurrency.setValue(self.settings.concurrency)
        self.timeout = QDoubleSpinBox()
        self.timeout.setRange(1, 600)
        self.timeout.setSuffix(" s")
        self.timeout.setValue(self.settings.timeout_s)
        self.cache_dir = QgsFileWidget()
        self.cache_dir.setStorageMode(QgsFileWidget.StorageMode.GetDirectory)
        self.cache_dir.setFilePath(self.settings.cache_dir)
        form.addRow("Fleet API address", self.fleet_url)
        form.addRow("Fleet API key", self.fleet_key)
        form.addRow("Data API address", self.data_url)
        form.addRow("Data API key", self.data_key)
        form.addRow("MCP server address", self.mcp_url)
        form.addRow("Parallel requests", self.concurrency)
        form.addRow("Request timeout", self.timeout)
        form.addRow("Cache folder", self.cache_dir)
        cache_row = QHBoxLayout()
        self.cache_label = QLabel("")
        clear = QPushButton("Clear Cache")
        clear.setToolTip("Forget stored answers: the next fetches ask the service (and pay) again")
        clear.clicked.connect(self.clear_cache)
        cache_row.addWidget(self.cache_label, 1)
        cache_row.addWidget(clear)
        form.addRow("Response cache", cache_row)
        self.show_cache_size()

        self.status = QLabel("")
        self.status.setWordWrap(True)
        test = QPushButton("Test Connection")
        test.clicked.connect(self.test_connection)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)

        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(test)
        layout.addWidget(self.status)
        layout.addWidget(buttons)

    @staticmethod
    def _key_edit(authcfg: str) -> QLineEdit:
        edit = QLineEdit()
        edit.setEchoMode(QLineEdit.EchoMode.Password)
        edit.setPlaceholderText(STORED_HINT if authcfg else "paste the API key")
        return edit

    def _cache(self):
        from ..core.cache import ResponseCache
        from ..processing_provider.algorithms.base import default_cache_dir

        # the folder only: reading keys here could ask for the auth master password
        folder = default_cache_dir(_FolderOnly(self.cache_dir.filePath()
                                               or os.environ.get("FLEETSTREET_CACHE_DIR")))
        return ResponseCache.in_folder(folder) if os.path.isdir(folder) else None

    def show_cache_size(self) -> None:
        """Show how many answers the response cache holds and its size on disk."""
        try:
            cache = self._cache()
            entries, size = (0, 0)
            if cache is not None:
                entries, size = cache.size()
                cache.close()
        except Exception as exc:  # noqa: BLE001 - informational only
            self.cache_label.setText(f"unreadable ({exc})")
            return
        plural = "" if entries == 1 else "s"
        self.cache_label.setText(f"{entries:,} answer{plural}, {size / 1e6:,.1f} MB")

    def clear_cache(self) -> None:
        """Empty the response cache."""
        cache = self._cache()
        if cache is not None:
            cache.clear()
            cache.close()
        self.show_cache_size()

    def save(self) -> None:
        """Store addresses in settings and keys in the auth database."""
        s = self.settings
        s.fleet_url = self.fleet_url.text().strip()
        s.data_url = self.data_url.text().strip()
        s.mcp_url = self.mcp_url.text().strip()
        if self.fleet_key.text():
            s.fleet_authcfg = store_key(self.fleet_key.text(), "Fleet Street fleet API",
                                        s.fleet_authcfg)
        if self.data_key.text():
            s.data_authcfg = store_key(self.data_key.text(), "Fleet Street data API",
                                       s.data_authcfg)
        s.concurrency = self.concurrency.value()
        s.timeout_s = self.timeout.value()
        s.cache_dir = self.cache_dir.filePath()
        s.save()

    def accept(self) -> None:
        """Save, then close; stay open with the reason when saving fails."""
        try:
            self.save()
        except Exception as exc:  # noqa: BLE001 - shown to the user, dialog stays open
            self.status.setText(f"<b>Not saved:</b> {exc}")
            return
        super().accept()

    def profile_from_fields(self):
        """The connection as typed in the dialog (stored keys where no new key is typed)."""
        try:
            stored = resolve_profile()
        except Exception:  # noqa: BLE001 - a stored key that cannot be read: use typed ones
            from ..core.profile import ConnectionProfile

            stored = ConnectionProfile.from_env({})
        data_url = self.data_url.text().strip().rstrip("/")
        return stored.replace(
            fleet_url=self.fleet_url.text().strip().rstrip("/"),
            data_url=data_url,
            mcp_url=self.mcp_url.text().strip() or (data_url + "/mcp" if data_url else ""),
            fleet_key=self.fleet_key.text() or stored.fleet_key,
            data_key=self.data_key.text() or stored.data_key,
            timeout_s=self.timeout.value(),
        )

    def test_connection(self) -> None:
        """Read the balance and the device list in a background task, saving nothing."""
        profile = self.profile_from_fields()
        self.status.setText("Testing…")
        self._task = QgsTask.fromFunction("Fleet Street: test connection", _probe, profile,
                                          on_finished=self._probe_done)
        QgsApplication.taskManager().addTask(self._task)

    def _probe_done(self, exception, result=None) -> None:
        if exception is not None:
            self.status.setText(f"<b>Test failed:</b> {exception}")
        else:
            self.status.setText("<br>".join(result))
        self._task = None


class _FolderOnly:
    """Just the cache folder of a profile, for default_cache_dir."""

    def __init__(self, cache_dir):
        self.cache_dir = cache_dir


def _probe(task, profile) -> list[str]:
    """Worker: one cheap call per configured API; returns readable lines."""
    from ..core.data_client import DataClient
    from ..core.fleet_client import FleetClient

    lines = []
    if profile.data_url:
        try:
            with DataClient(profile) as client:
                lines.append(f"Data API: OK, {client.balance():,.0f} credits left.")
        except Exception as exc:  # noqa: BLE001 - reported line by line
            lines.append(f"Data API: {exc}")
    if profile.fleet_url:
        try:
            with FleetClient(profile) as client:
                lines.append(f"Fleet API: OK, {len(client.devices())} devices.")
        except Exception as exc:  # noqa: BLE001
            lines.append(f"Fleet API: {exc}")
    return lines or ["No address configured."]

