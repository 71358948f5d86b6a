"""Fleet Street QGIS plugin: street-level data and fleet telemetry as native layers."""


def classFactory(iface):  # noqa: N802 - name required by QGIS
    """Return the plugin instance; QGIS calls this with iface (None under qgis_process)."""
    from .vendor_path import add_vendor_path

    add_vendor_path()
    from .plugin import FleetStreetPlugin

    return FleetStreetPlugin(iface)
