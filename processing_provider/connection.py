"""Connection settings inside QGIS: addresses in QgsSettings, keys in the QGIS auth database."""

from __future__ import annotations

import os
from dataclasses import dataclass

from qgis.core import QgsApplication, QgsAuthMethodConfig, QgsNetworkAccessManager, QgsSettings
from qgis.PyQt.QtNetwork import QNetworkProxy

from ..core.errors import ValidationError
from ..core.profile import ConnectionProfile

SETTINGS_GROUP = "fleet_street"
AUTH_METHOD = "Basic"
KEY_FIELD = "password"


@dataclass
class StoredSettings:
    """What the settings dialog edits; keys are referenced by auth config ids only."""

    fleet_url: str = ""
    data_url: str = ""
    mcp_url: str = ""
    fleet_authcfg: str = ""
    data_authcfg: str = ""
    concurrency: int = 4
    timeout_s: float = 30.0
    cache_dir: str = ""

    @classmethod
    def load(cls) -> StoredSettings:
        """Read the stored settings."""
        s = QgsSettings()
        s.beginGroup(SETTINGS_GROUP)
        try:
            return cls(
                fleet_url=str(s.value("fleet_url", "") or ""),
                data_url=str(s.value("data_url", "") or ""),
                mcp_url=str(s.value("mcp_url", "") or ""),
                fleet_authcfg=str(s.value("fleet_authcfg", "") or ""),
                data_authcfg=str(s.value("data_authcfg", "") or ""),
                concurrency=int(s.value("concurrency", 4) or 4),
                timeout_s=float(s.value("timeout_s", 30.0) or 30.0),
                cache_dir=str(s.value("cache_dir", "") or ""),
            )
        finally:
            s.endGroup()

    def save(self) -> None:
        """Write the settings (addresses and auth config ids, never a key)."""
        s = QgsSettings()
        s.beginGroup(SETTINGS_GROUP)
        for name, value in self.__dict__.items():
            s.setValue(name, value)
        s.endGroup()

    @property
    def configured(self) -> bool:
        """True when the user has saved at least one address."""
        return bool(self.fleet_url or self.data_url)


def store_key(key: str, name: str, authcfg: str = "") -> str:
    """Save a key in the QGIS auth database (updating authcfg if given); return the config id."""
    manager = QgsApplication.authManager()
    config = QgsAuthMethodConfig(AUTH_METHOD)
    if authcfg and manager.loadAuthenticationConfig(authcfg, config, True):
        config.setConfig(KEY_FIELD, key)
        if not manager.updateAuthenticationConfig(config):
            raise ValidationError("Could not update the key in the QGIS authentication database.")
        return config.id()
    config.setName(name)
    config.setConfig("username", "api-key")
    config.setConfig(KEY_FIELD, key)
    ok = manager.storeAuthenticationConfig(config)
    ok = ok[0] if isinstance(ok, tuple) else ok
    if not ok:
        raise ValidationError(
            "Could not store the key in the QGIS authentication database; "
            "check that its master password is set (Settings › Options › Authentication)."
        )
    return config.id()


def key_from_authcfg(authcfg: str) -> str:
    """The key held by an auth config id; a clear error when it cannot be read."""
    if not authcfg:
        return ""
    config = QgsAuthMethodConfig()
    manager = QgsApplication.authManager()
    if authcfg not in manager.configIds():
        raise ValidationError(
            f"The authentication configuration '{authcfg}' could not be read: it does not "
            "exist. Choose another one or enter the key again in Connection Settings."
        )
    if not manager.loadAuthenticationConfig(authcfg, config, True) or not config.isValid():
        raise ValidationError(
            f"The authentication configuration '{authcfg}' could not be read. "
            "Unlock the QGIS authentication database or choose another configuration."
        )
    key = config.config(KEY_FIELD) or config.config("token") or config.config("value")
    if not key:
        raise ValidationError(f"The authentication configuration '{authcfg}' holds no key.")
    return key


def qgis_proxy_url() -> str | None:
    """The HTTP proxy configured in QGIS's network settings, as a URL, if any."""
    proxy = QgsNetworkAccessManager.instance().fallbackProxy()
    if proxy.type() in (QNetworkProxy.ProxyType.NoProxy, QNetworkProxy.ProxyType.DefaultProxy):
        return None
    if not proxy.hostName():
        return None
    auth = ""
    if proxy.user():
        auth = f"{proxy.user()}:{proxy.password()}@"
    scheme = "socks5" if proxy.type() == QNetworkProxy.ProxyType.Socks5Proxy else "http"
    return f"{scheme}://{auth}{proxy.hostName()}:{proxy.port()}"


def resolve_profile(authcfg: str = "", api: str = "data") -> ConnectionProfile:
    """Build the connection profile for a run: stored settings, else environment variables.

    ``authcfg`` (from a QgsProcessingParameterAuthConfig) overrides the stored key of ``api``
    ("data" or "fleet"). Environment variables (FLEETSTREET_*) apply when no address has
    been saved in the settings, which is the case for headless runs.
    """
    stored = StoredSettings.load()
    env = ConnectionProfile.from_env(os.environ)
    if stored.configured:
        data_url = stored.data_url.rstrip("/")
        profile = ConnectionProfile(
            fleet_url=stored.fleet_url.rstrip("/"),
            data_url=data_url,
            mcp_url=stored.mcp_url or (data_url + "/mcp" if data_url else ""),
            fleet_key=key_from_authcfg(stored.fleet_authcfg) or env.fleet_key,
            data_key=key_from_authcfg(stored.data_authcfg) or env.data_key,
            timeout_s=stored.timeout_s,
            concurrency=stored.concurrency,
            cache_dir=stored.cache_dir or env.cache_dir,
            proxy=qgis_proxy_url(),
        )
    else:
        profile = env.replace(proxy=qgis_proxy_url())
    if authcfg:
        key = key_from_authcfg(authcfg)
        profile = profile.replace(**{f"{api}_key": key})
    return profile
