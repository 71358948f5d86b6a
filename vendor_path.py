"""Make the plugin's bundled pure-Python dependencies importable."""

import os
import sys

VENDOR_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_vendor")


def add_vendor_path() -> None:
    """Append the private _vendor folder to sys.path, after everything already there.

    Appending (not prepending) means a copy of httpx that QGIS or another plugin
    already provides keeps precedence, so this plugin never shadows it.
    """
    if os.path.isdir(VENDOR_DIR) and VENDOR_DIR not in sys.path:
        sys.path.append(VENDOR_DIR)
