"""The plugin's QGIS-facing modules use no spelling that QGIS 4 (Qt6) removed.

Scoped enums with a 3.22 fallback live in processing_provider/compat.py only; everything
else must use those names or Qt enums written scoped (Qt.AlignmentFlag.AlignLeft).
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMPAT = ROOT / "processing_provider" / "compat.py"

REMOVED = [
    r"\bexec_\(",
    r"\bQVariant\.(Int|Double|String|DateTime|Date|Bool|LongLong)\b",
    r"\bQgsWkbTypes\.(Point|LineString|Polygon|NoGeometry|PointGeometry|LineGeometry"
    r"|PolygonGeometry|Unknown)\b",
    r"\bQgsProcessing\.Type",
    r"\bQgsProcessingParameterNumber\.(Double|Integer)\b",
    r"\bQgsProcessingParameterDateTime\.(Date|DateTime|Time)\b",
    r"\bQgsProcessingParameterFile\.(File|Folder)\b",
    r"\bQgsProcessingParameterDefinition\.Flag",
    r"\bQgsProcessingAlgorithm\.Flag",
    r"\bQgsFeatureRequest\.(NoGeometry|SubsetOfAttributes|ExactIntersect)\b",
    r"\bQgsFeatureSink\.FastInsert\b",
    r"\bQgsCoordinateReferenceSystem\.WKT",
    r"\bQgis\.(Info|Warning|Critical|Success|NoLevel)\b",
    # Qt enums must be scoped: Qt.AlignmentFlag.AlignLeft, not Qt.AlignLeft
    r"\bQt\.[A-Z]\w*(?![\w.])",
    r"\b(QDialogButtonBox|QMessageBox|QSizePolicy|QFrame|QAbstractItemView|QHeaderView"
    r"|QLineEdit|QComboBox|QImage|QNetworkProxy|QgsFileWidget)\.[A-Z]\w*(?![\w.(])",
]
PATTERNS = [re.compile(p) for p in REMOVED]


def plugin_files():
    """plugin.py plus every module under ui/ and processing_provider/, except compat.py."""
    files = [ROOT / "plugin.py"]
    for folder in ("ui", "processing_provider"):
        files.extend(sorted((ROOT / folder).rglob("*.py")))
    return [f for f in files if f != COMPAT]


def offending_lines():
    found = []
    for path in plugin_files():
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.lstrip().startswith("#"):
                continue
            for pattern in PATTERNS:
                match = pattern.search(line)
                if match:
                    rel = path.relative_to(ROOT).as_posix()
                    found.append(f"{rel}:{number}: {match.group(0)}  ({line.strip()})")
    return found


def test_files_are_found():
    names = {p.relative_to(ROOT).as_posix() for p in plugin_files()}
    assert "plugin.py" in names
    assert "ui/dock.py" in names
    assert "processing_provider/algorithms/street_base.py" in names
    assert "processing_provider/compat.py" not in names


def test_no_spelling_removed_in_qgis4():
    found = offending_lines()
    assert not found, "QGIS 4 removed these spellings (use compat.py):\n" + "\n".join(found)


def test_patterns_catch_old_spellings():
    samples = [
        "dlg.exec_()", "QVariant.Int", "QgsWkbTypes.PointGeometry", "QgsProcessing.TypeVector",
        "QgsProcessingParameterNumber.Double", "Qgis.Warning", "Qt.AlignLeft",
        "QDialogButtonBox.Save", "QgsFeatureSink.FastInsert",
    ]
    for sample in samples:
        assert any(p.search(sample) for p in PATTERNS), sample
    for fine in ["dlg.exec()", "Qgis.MessageLevel.Warning", "Qt.AlignmentFlag.AlignLeft",
                 "QDialogButtonBox.StandardButton.Save", "QgsWkbTypes.geometryType(t)",
                 "QgsFeatureSink.Flag.FastInsert", "QImage(data, w, h, QImage.Format.X)"]:
        assert not any(p.search(fine) for p in PATTERNS), fine
